# lib.sh: what the end-to-end tests share. Sourced, not run. Every change to global state (kernel.core_pattern,
# mounts, a journald) registers its undo with at_exit, and the EXIT trap undoes all of it, pass or fail.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
CORESINK=$B/coresink
CRASHER=$B/crasher
PATCHECK=$B/patcheck
FREEWATCH=$B/freewatch
DEADSOCK=$B/deadsock
SOCKPEER=$B/sockpeer
WITHPIDFD=$B/withpidfd
STOPUID=$B/stopuid
WORKERS=$B/workers
JOURNALD=/lib/systemd/systemd-journald
MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1
DROPPED_ID=d301249c826d437dbe30b41472bde574   # coresink's report of the crashes the kernel dropped
UNLIMITED=18446744073709551615   # %c of a process without RLIMIT_CORE
NAME=${CORESINK_TEST_NAME:-$(basename "$0" .sh)}
# Entries are this test's only if written since it began: pids are reused and journals persist, so a lookup by pid
# over a whole journal finds older runs' crashes on a machine that has lived.
TEST_SINCE="@$(( $(date +%s) - 1 ))"

_undo=""
# Registers a command to run at exit; the last registered runs first.
at_exit() { _undo="$1
$_undo"; }
_run_undo() {
	set +e
	printf '%s\n' "$_undo" | while IFS= read -r cmd; do [ -n "$cmd" ] && eval "$cmd"; done
}
trap '_run_undo' EXIT
trap 'exit 130' INT TERM HUP

ok() { echo "ok   $NAME: $*"; }
fail() { echo "FAIL $NAME: $*"; exit 1; }
skip() { echo "SKIP $NAME: $*"; exit 77; }
# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root ($1)"; }

# A scratch directory, removed at exit.
scratch() {
	T=$(mktemp -d /tmp/coresink-e2e.XXXXXX) || fail "mktemp"
	at_exit "rm -rf '$T'"
}

# write_config FILE KEY=VALUE...: a [Coresink] config with these lines. Cores are stored uncompressed unless a line
# says Compress=: most tests read the stored bytes back or count their blocks; t-compress tests compression.
# MetricsFile= is $T/coresink.prom, NotifyDirectory= and CollectDirectory= none, unless a line says otherwise.
write_config() {
	local f=$1 kv; shift
	{ echo "[Coresink]"; for kv in "$@"; do echo "$kv"; done
	  case " $* " in *" Compress="*) ;; *) echo "Compress=no" ;; esac
	  # The metrics go to the test's scratch directory, never to node_exporter's of the machine.
	  case " $* " in *" MetricsFile="*) ;; *) if [ -d "${T:-}" ]; then echo "MetricsFile=$T/coresink.prom"
						   else echo "MetricsFile=no"; fi ;; esac
	  # Nor are the machine's notifiers told of a test's crashes, or its collect hooks run for them.
	  case " $* " in *" NotifyDirectory="*) ;; *) echo "NotifyDirectory=no" ;; esac
	  case " $* " in *" CollectDirectory="*) ;; *) echo "CollectDirectory=no" ;; esac; } > "$f"
}

# Points kernel.core_pattern at the built handler with CONFIG, and kernel.core_pipe_limit at 16 so the kernel waits
# for the handler; both are restored at exit.
use_handler() {
	pattern=$("$CORESINK" --config "$1" --core-pattern) || fail "--core-pattern"
	old_pattern=$(cat /proc/sys/kernel/core_pattern)
	old_limit=$(cat /proc/sys/kernel/core_pipe_limit)
	at_exit "printf '%s\n' '$old_pattern' > /proc/sys/kernel/core_pattern; echo $old_limit > /proc/sys/kernel/core_pipe_limit"
	printf '%s\n' "$pattern" > /proc/sys/kernel/core_pattern
	echo 16 > /proc/sys/kernel/core_pipe_limit
}

# blocks: the lines from stdin as one line per thread (a line that starts with "Thread" or "Stack" begins one),
# sorted: two runs of a program start their threads in an order of their own.
blocks() { awk '/^(Thread|Stack)/ { if (b != "") print b; b = "" } { b = b $0 " | " } END { print b }' | sort; }

# gdb_threads EXE CORE: every thread's frames as gdb shows them, without what differs between two runs (thread ids,
# addresses, argument values), thread by thread.
gdb_threads() {
	gdb -q -batch -iex "set print frame-arguments none" -iex "set print address off" -ex "thread apply all bt" \
		"$1" "$2" 2>/dev/null | grep -E '^(Thread [0-9]+|#[0-9]+ )' |
		sed -E 's/^(Thread) [0-9]+ .*/\1/; s/ \(\.\.\.\)//; s/ at [^ ]+$//' | blocks
}

# trace_blocks: the stack traces of an entry's message (stdin), without thread ids and addresses, thread by thread.
trace_blocks() {
	grep -E '^(Stack trace of thread|#[0-9]+ )' |
		sed -E 's/^Stack trace of thread [0-9]+:/Stack trace of thread:/; s/^(#[0-9]+ +)0x[0-9a-f]+ /\1/' | blocks
}

# Socket mode needs the request/ack exchange of Linux 6.17. A kernel without it may well take "@@" in core_pattern
# (6.1 and 6.12 take it as a file name), so the handler asks the kernel what it does (sockcap.c).
# have_socket_mode says whether it serves it; need_socket_mode skips the test when not.
have_socket_mode() { "$CORESINK" --config /dev/null --core-pattern --socket > /dev/null 2>&1; }
need_socket_mode() { have_socket_mode || skip "no coredump socket (@@) in $(uname -r)"; }

# start_server CONF: coresink --serve with CONF, in the background and in a process group of its own (its
# handlers are in it too), until it listens. Stopped at exit by its pid. Sets SERVER_PID; its output goes to
# $T/server.log.
start_server() {
	local sock
	sock=$(sed -n 's/^Socket=//p' "$1")
	: > "$T/server.log"
	setsid "$CORESINK" --config "$1" --serve >> "$T/server.log" 2>&1 &
	SERVER_PID=$!
	at_exit "stop_server"
	for _ in $(seq 50); do
		[ -S "$sock" ] && grep -q 'serving the coredump socket' "$T/server.log" && return 0
		sleep 0.1
	done
	cat "$T/server.log"
	fail "coresink --serve did not listen on $sock"
}

# Stops the server started above (SIGTERM: it finishes the crashes in hand), by its pid.
stop_server() { stop_started SERVER_PID; }

# use_socket CONF: kernel.core_pattern sends crashes to CONF's Socket= ("@@"); restored at exit.
use_socket() {
	pattern=$("$CORESINK" --config "$1" --core-pattern --socket) || fail "--core-pattern --socket"
	old_pattern=$(cat /proc/sys/kernel/core_pattern)
	at_exit "printf '%s\n' '$old_pattern' > /proc/sys/kernel/core_pattern"
	printf '%s\n' "$pattern" > /proc/sys/kernel/core_pattern
}

# release_mount DIR: unmounts DIR once nothing holds it (a handler the test started may still be compressing or
# analysing a core there: up to 30 s are waited), and detaches it from the tree if something still does.
release_mount() {
	for _ in $(seq 150); do umount "$1" 2>/dev/null && return 0; sleep 0.2; done
	umount -l "$1"
}

# mount_tmpfs DIR SIZE: a small real file system, unmounted at exit.
mount_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0755" coresink-e2e "$1" || fail "mount tmpfs $1"
	at_exit "release_mount '$1'"
}

# make_fs TYPE DIR MIB: a small real file system of TYPE (tmpfs, ext4, xfs, btrfs) mounted at DIR, unmounted at exit.
make_fs() {
	mkdir -p "$2"
	case $1 in
	tmpfs) mount_tmpfs "$2" "$3M"; return ;;
	ext4) mk="mkfs.ext4 -q -F" ;;
	xfs) mk="mkfs.xfs -q -f" ;;
	btrfs) mk="mkfs.btrfs -q -f" ;;
	*) fail "make_fs: unknown type $1" ;;
	esac
	command -v "${mk%% *}" >/dev/null || skip "no ${mk%% *}"
	truncate -s "$3M" "$2.img" && $mk "$2.img" >/dev/null || fail "$mk"
	mount -o loop "$2.img" "$2" || skip "cannot loop-mount $1"
	at_exit "release_mount '$2'"
}

# avail DIR: the bytes an unprivileged writer may still use there (f_bavail * f_frsize), as coresink sees it.
avail() { stat -f -c '%a %S' "$1" | awk '{ print $1 * $2 }'; }

# crash_run COMMAND ARGS...: COMMAND, with RLIMIT_CORE unlimited, is expected to crash; waits for it. Sets CRASH_PID,
# CRASH_STATUS, and CRASH_SINCE, the moment before it, so that its lookups (since_pid) see nothing older: pids are
# reused, and a journal that has lived holds older crashes of the same pid. The shell's own "Segmentation fault"
# notice is kept out of the test's output.
crash_run() {
	CRASH_SINCE="@$(date +%s.%N)"
	{ ( ulimit -c unlimited; exec "$@" ) & CRASH_PID=$!; wait "$CRASH_PID"; CRASH_STATUS=$?; } 2>/dev/null
}

# since_pid PID: the earliest time an entry of PID's crash can have: the moment before it for the last crash
# (CRASH_PID, from crash_run), this test's start for any other.
since_pid() { if [ "$1" = "${CRASH_PID:-}" ]; then echo "${CRASH_SINCE:-$TEST_SINCE}"; else echo "$TEST_SINCE"; fi; }

# cdctl VERB PID ARGS...: coredumpctl VERB on PID's crash, never an older one of the same pid (since_pid).
cdctl() { local verb=$1 pid=$2; shift 2; coredumpctl --no-pager --since "$(since_pid "$pid")" "$verb" "$pid" "$@"; }

# crash MIB: a real process holding MIB of the pattern dies of SIGSEGV, and its handler is done (its entry is
# written: the process is let go before, and a compressed core appears after). Sets CRASH_PID and CRASH_STATUS.
crash() {
	crash_run "$CRASHER" "$1"
	KMSG_SEQ=${KMSG_SEQ:-0} crash_log "$CRASH_PID" >/dev/null
}

# crash_z MIB PCT: a real crash holding MIB of the pattern with PCT% zero pages; sets CRASH_PID.
crash_z() { crash_run "$CRASHER" -z "$2" "$1"; }

# The kernel log from here on: kmsg_mark, then kmsg_since prints the messages that came after. Records are told
# apart by their sequence numbers ("prio,seq,usec,flags;message"), which hold when the ring buffer wraps.
_kmsg() { dd if=/dev/kmsg iflag=nonblock bs=8192 2>/dev/null | grep -a '^[0-9]*,[0-9]*,'; }
kmsg_mark() { KMSG_SEQ=$(_kmsg | tail -n 1 | cut -d, -f2); KMSG_SEQ=${KMSG_SEQ:-0}; }
kmsg_since() { _kmsg | awk -F, -v s="$KMSG_SEQ" '$2 > s { sub(/^[^;]*;/, ""); print }'; }

# Whether a journald listens where the handler sends its entries. (pidof sees other mount namespaces' too: the
# socket tells whether one is reachable from here.)
journald_running() { [ -S /run/systemd/journal/socket ] && pidof systemd-journald >/dev/null 2>&1; }

# journal_dir_keep: journald's runtime directory, made (on a tmpfs of its own where /run is not one, as
# start_journald does) and kept until this shell exits, so that the journalds started meanwhile share its files.
journal_dir_keep() {
	[ -d /run/log/journal ] || { mkdir -p /run/log/journal; at_exit "rm -rf /run/log/journal"; }
	if [ "$(stat -f -c %T /run)" != tmpfs ] && ! mountpoint -q /run/log/journal; then
		mount -t tmpfs -o mode=0755,size=1G coresink-journal /run/log/journal || fail "tmpfs for journald"
		at_exit "umount /run/log/journal 2>/dev/null || umount -l /run/log/journal"
	fi
}

# Starts a private systemd-journald when none runs; it is stopped (by its pid) and its traces removed at exit.
# When one runs already (the system's, or the one tests/e2e/run.sh started), the test uses it: JOURNALD_PID is "".
start_journald() {
	JOURNALD_PID=""
	journald_running && return 0
	jd=$JOURNALD
	[ -x "$jd" ] || skip "no $jd"
	[ -d /run/systemd/journal ] || at_exit "rm -rf /run/systemd/journal"
	[ -d /run/log/journal ] || at_exit "rm -rf /run/log/journal"
	# journald's runtime journal lives on a tmpfs on a real system (it will not remove it from a disk after a
	# flush, and then never splits by user): give it one where /run is not. 1 GiB, used only as written: journald
	# lets a file grow to an eighth of a tenth of it (12.8 MB), which a core in an entry (Storage=journal) needs.
	if [ "$(stat -f -c %T /run)" != tmpfs ] && ! mountpoint -q /run/log/journal; then
		mkdir -p /run/log/journal
		mount -t tmpfs -o mode=0755,size=1G coresink-journal /run/log/journal || fail "tmpfs for journald"
		# A journald just stopped may hold it for a moment: then detach it lazily.
		at_exit "umount /run/log/journal 2>/dev/null || umount -l /run/log/journal"
	fi
	"$jd" >/dev/null 2>&1 &
	JOURNALD_PID=$!
	at_exit "stop_journald"
	for _ in $(seq 50); do
		[ -S /run/systemd/journal/socket ] && return 0
		sleep 0.1
	done
	fail "systemd-journald did not create its socket"
}

# stop_started VAR: stops the background process whose pid VAR holds (one this test started), by that pid:
# SIGTERM, then reaped; VAR is emptied. At exit the undo list runs in a subshell (_run_undo's pipe), whose wait
# cannot reap the test's child: there it waits (10 s at most) until the process is gone or a zombie, so that the
# runner's check after the test never finds it alive (a journald still flushing failed t-ratelimit so).
stop_started() {
	local pid=${!1:-}
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	for _ in $(seq 200); do
		kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" != Z ] || break
		sleep 0.05
	done
	printf -v "$1" '%s' ""
}

# stripped_pair DIR NAME RPATH: a program DIR/NAME and its library DIR/libdoor.so, built with debug info, which goes
# to DIR/served (objcopy --only-keep-debug); what runs is stripped, so that its frames (door_crash in the library,
# door_level and main in the program) are named only from the served files. RPATH: where it finds the library.
stripped_pair() {
	local dir=$1 name=$2 rpath=$3 f
	mkdir -p "$dir/served" || fail "$dir"
	printf '__attribute__((noinline)) int door_crash(int *p) { return *p + 1; }\n' > "$dir/lib.c"
	printf 'int door_crash(int *p);\n__attribute__((noinline)) static int door_level(int n) { return door_crash(n > 9 ? &n : 0) * 2; }\nint main(int argc, char **argv) { (void) argv; return door_level(argc); }\n' > "$dir/prog.c"
	cc -O1 -g -fPIC -shared -o "$dir/libdoor.so" "$dir/lib.c" &&
		cc -O1 -g -o "$dir/$name" "$dir/prog.c" -L"$dir" -ldoor -Wl,-rpath,"$rpath" || fail "building $name"
	for f in "$name" libdoor.so; do
		objcopy --only-keep-debug "$dir/$f" "$dir/served/$f.debug" && strip --strip-all "$dir/$f" || fail "stripping $f"
	done
	rm -f "$dir/lib.c" "$dir/prog.c"
}

# serve_debuginfo DIR PORT PROGRAM: elfutils' debuginfod serving the debug files in DIR on 127.0.0.1:PORT (its log,
# -v, in DEBUGINFOD_LOG; its pid in DEBUGINFOD_PID, stopped at exit), waited for until it serves PROGRAM's (a
# fresh client cache each time: libdebuginfod remembers a miss, and the server may not have scanned yet).
serve_debuginfo() {
	local dir=$1 port=$2 program=$3
	DEBUGINFOD_LOG=$T/debuginfod-$port.log
	debuginfod -F "$dir" -p "$port" -d "$T/debuginfod-$port.sqlite" -v > "$DEBUGINFOD_LOG" 2>&1 &
	DEBUGINFOD_PID=$!
	at_exit "stop_started DEBUGINFOD_PID"
	for _ in $(seq 100); do
		rm -rf "$T/probe"
		DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$T/probe debuginfod-find debuginfo \
			"$program" > /dev/null 2>&1 && break
		sleep 0.2
	done
	rm -rf "$T/probe"
}

# Stops the journald this test started; its socket stays behind, as after a crash of journald.
stop_journald() { stop_started JOURNALD_PID; }

# jctl ARGS...: journalctl over what this test's time wrote (TEST_SINCE, or JCTL_SINCE when set, for one crash's
# lookups), and nothing older. (With --since, -n N counts from the oldest: the newest N are -r -n N.) A test that
# reads another journal (a container's) defines its own, with the same bound.
jctl() { journalctl --no-pager --since "${JCTL_SINCE:-$TEST_SINCE}" "$@"; }

# journal_entry PID: the crash entry of PID in export format, waiting up to 5 s for journald to write it.
journal_entry() { entry_where "COREDUMP_PID=$1"; }

# entry_poll SINCE FORMAT MATCH: the crash entries that match, written since SINCE, in journalctl's FORMAT, waiting
# up to 5 s for journald to write them. (The export format gives multi-line fields in binary, with NULs in their
# length: those are dropped.)
entry_poll() {
	local out
	for _ in $(seq 50); do
		out=$(JCTL_SINCE=$1 jctl -o "$2" "MESSAGE_ID=$MESSAGE_ID" "$3" 2>/dev/null | tr -d '\0')
		[ -n "$out" ] && { printf '%s\n' "$out"; return 0; }
		sleep 0.1
	done
	return 1
}

# entries_of PID [SINCE]: how many crash entries name PID, since SINCE (this test's start): a crash's start where
# pids are reused within a test. Waits up to 1 s for one when there is none yet.
entries_of() {
	local n=0
	for _ in $(seq 10); do
		n=$(JCTL_SINCE=${2:-$TEST_SINCE} jctl -o cat "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$1" 2>/dev/null |
			grep -c '^Process ')
		[ "$n" -gt 0 ] && break
		sleep 0.1
	done
	echo "$n"
}

# entry_where FIELD=VALUE: the crash entry that has it, as journal_entry; for COREDUMP_PID=, since that crash
# (since_pid).
entry_where() {
	local since=$TEST_SINCE
	case $1 in COREDUMP_PID=*) since=$(since_pid "${1#COREDUMP_PID=}") ;; esac
	entry_poll "$since" export "$1"
}

# entry_message PID: the whole MESSAGE of PID's crash entry, its stack trace included (export format shows a
# multi-line field as binary), waiting up to 5 s for journald to write it.
entry_message() { entry_poll "$(since_pid "$1")" cat "COREDUMP_PID=$1"; }

# crash_log PID: the MESSAGE of PID's crash entry (waiting up to 5 s: it comes after the process has gone), read from wherever the handler sent it: the journal when a
# journald listens (the system's or the test's), the kernel log (since kmsg_mark) when none does.
crash_log() {
	local m
	if journald_running; then
		entry_message "$1"
		return
	fi
	# The process is let go before its entry is written: wait for it (not the early "processing" line).
	for _ in $(seq 50); do
		m=$(kmsg_since | grep -F "Process $1 (")
		printf '%s\n' "$m" | grep -qv 'processing\.\.\.$' && { printf '%s\n' "$m"; return 0; }
		sleep 0.1
	done
	return 1
}

# in_private_ns SCRIPT: runs the bash file SCRIPT (it sources lib.sh itself) in a private mount namespace in which
# /run and /var/log are empty tmpfs: no journald's socket, no journal, whatever runs outside. What it mounts or
# starts there is its own; the mounts go with the namespace. The handler it runs directly sees that /run, while a
# kernel-spawned handler always sees the real one. Its exit status is SCRIPT's.
in_private_ns() {
	unshare --mount --propagation private bash -c '
		mount -t tmpfs -o mode=0755 coresink-ns /run && mount -t tmpfs -o mode=0755 coresink-ns /var/log &&
			exec env CORESINK_TEST_NAME="$1" bash "$2"' _ "$NAME" "$1"
}

# field ENTRY NAME: the value of NAME in an entry in export format (the first, when several).
field() { printf '%s\n' "$1" | sed -n "s/^$2=//p" | head -n 1; }

# has_line TEXT LINE: TEXT holds LINE exactly.
has_line() { printf '%s\n' "$1" | grep -qxF -- "$2"; }
# all_of TEXT LINE...: TEXT holds each LINE exactly; none_of TEXT PART...: TEXT holds none of the PARTs.
all_of() { local text=$1 l; shift; for l in "$@"; do has_line "$text" "$l" || return 1; done; }
none_of() { local text=$1 p; shift; for p in "$@"; do has "$text" "$p" && return 1; done; return 0; }
# matches TEXT REGEX: a line of TEXT matches the extended REGEX.
matches() { printf '%s\n' "$1" | grep -qE -- "$2"; }

# has TEXT PART: TEXT holds PART somewhere; lacks: it does not.
has() { printf '%s\n' "$1" | grep -qF -- "$2"; }
# forge_sshd_entry: as user nobody, an entry with coresink's MESSAGE_ID and identifier that says sshd crashed as root
# and names /etc/passwd as its core: what any local user can send (logger --journald).
forge_sshd_entry() {
	setpriv --reuid=65534 --regid=65534 --clear-groups logger --journald <<EOF
MESSAGE_ID=$MESSAGE_ID
MESSAGE=Process 1 (sshd) of user 0 dumped core.
SYSLOG_IDENTIFIER=coresink
COREDUMP_PID=1
COREDUMP_UID=0
COREDUMP_GID=0
COREDUMP_SIGNAL=11
COREDUMP_EXE=/usr/sbin/sshd
COREDUMP_COMM=sshd
COREDUMP_TIMESTAMP=$(date +%s)000000
COREDUMP_FILENAME=/etc/passwd
CORESINK_SIGNATURE=deadbeefdeadbeef
CORESINK_SIGNATURE_TEXT=1;SIGSEGV;sshd!main
EOF
}

# all_of_re TEXT RE...: every extended regex matches a line of TEXT.
all_of_re() { local text=$1 r; shift; for r in "$@"; do matches "$text" "$r" || return 1; done; }

# fails CMD...: CMD fails. quiet CMD...: CMD, without its output.
fails() { ! "$@"; }
quiet() { "$@" > /dev/null 2>&1; }
lacks() { ! has "$@"; }

# The entries of a core directory but the ledger (.coresink.state) and the signatures seen (.coresink.signatures):
# cores, and anything that should not be there.
entries() { ls -A "$1" | grep -vxE '\.coresink\.(state|signatures|metrics)'; }

# The only entry of a core directory (the ledger aside), or failure when there are none or several.
only_file() {
	local n
	n=$(entries "$1" | wc -l)
	# Called as $(only_file ...): the reason goes to stderr, or it would vanish into the variable.
	[ "$n" -eq 1 ] || { ls -la "$1"; fail "expected one file in $1, found $n"; } >&2
	echo "$1/$(entries "$1")"
}

file_size() { stat -c %s "$1"; }

# tally PID...: the crash entries of the PIDs, counted by CORESINK_RESULT into RESULTS (a core refused before its
# first byte at MaxUse, its room held by captures in flight, counts as truncated); MISSING counts PIDs without an
# entry, VACUUMED the old cores their captures removed, SUMMARY says it in words. A PID with two entries fails.
tally() {
	local p rows row r v lim
	declare -gA RESULTS=()
	MISSING=0 VACUUMED=0
	rows=$(tally_rows)
	for p in "$@"; do
		row=$(printf '%s\n' "$rows" | grep "^$p	")
		# Not written yet when the journal was read: waited for (journal_entry), then read again.
		if [ -z "$row" ]; then
			journal_entry "$p" > /dev/null || { MISSING=$((MISSING + 1)); continue; }
			rows=$(tally_rows)
			row=$(printf '%s\n' "$rows" | grep "^$p	")
		fi
		[ "$(printf '%s\n' "$row" | wc -l)" -eq 1 ] || fail "several entries for pid $p"
		IFS=$'\t' read -r _ r v lim <<< "$row"
		[ "$r" = discarded ] && [ "$lim" = MaxUse ] && r=truncated
		RESULTS[$r]=$(( ${RESULTS[$r]:-0} + 1 ))
		[ "$v" = - ] || VACUUMED=$((VACUUMED + v))
	done
	SUMMARY=$(for r in "${!RESULTS[@]}"; do printf '%s %s, ' "${RESULTS[$r]}" "$r"; done)
	SUMMARY=${SUMMARY%, }
}

# tally_rows: the crash entries since the test began, a line each: COREDUMP_PID, CORESINK_RESULT, CORESINK_VACUUMED
# and CORESINK_LIMIT, a tab between them, - where one is missing or empty. One journalctl for a whole storm: one per
# pid took 20 s of t-socket-storm's 84 on an idle machine.
tally_rows() {
	jctl -o export --output-fields=COREDUMP_PID,CORESINK_RESULT,CORESINK_VACUUMED,CORESINK_LIMIT \
		"MESSAGE_ID=$MESSAGE_ID" 2>/dev/null | awk -v RS= -F '\n' '{
		f["COREDUMP_PID"] = f["CORESINK_RESULT"] = f["CORESINK_VACUUMED"] = f["CORESINK_LIMIT"] = "-"
		for (i = 1; i <= NF; i++) {
			k = substr($i, 1, index($i, "=") - 1)
			if (k in f && length($i) > length(k) + 1)
				f[k] = substr($i, length(k) + 2)
		}
		print f["COREDUMP_PID"] "\t" f["CORESINK_RESULT"] "\t" f["CORESINK_VACUUMED"] "\t" f["CORESINK_LIMIT"]
	}'
}

# check_stored LABEL CORE MIB: CORE is the whole core of the crasher of MIB MiB that crash() ran last (CRASH_PID):
# named for it, 0640 root:root, every byte its ELF headers promise, the pattern intact, and gdb's backtrace on it.
check_stored() {
	local bt
	check "$1: named core.crasher.PID.UTC" \
		bash -c "[[ '$(basename "$2")' =~ ^core\.crasher\.$CRASH_PID\.[0-9]{8}T[0-9]{6}Z$ ]]"
	check "$1: mode 0640, owner root:root" test "$(stat -c '%a %u %g' "$2")" = "640 0 0"
	check "$1: every byte the ELF headers promise" "$PATCHECK" --elf "$2"
	check "$1: all $3 MiB of the process's pattern, intact" "$PATCHECK" "$2" "$3"
	bt=$(gdb -batch -ex bt "$CRASHER" "$2" 2>&1)
	check "$1: gdb reads it and shows crash_here on top" has "$bt" "#0  crash_here"
	check "$1: gdb reports no truncation" lacks "$bt" "truncated"
}

# A storm: crashes let go at the same moment. storm_ready K N MIB starts N crashers of MIB MiB (a tenth of it
# touched: hundreds fit at once, their cores MIB MiB all the same) that wait at FIFO $T/gate.K, their pids in
# $T/pids.K; storm_go K waits until every one of them waits there (at most 30 s), then lets them all crash at once.
storm_ready() {
	mkfifo "$T/gate.$1"
	for _ in $(seq "$2"); do
		( ulimit -c unlimited; exec "$CRASHER" -W "$T/gate.$1" -z 90 "$3" ) > /dev/null 2>&1 &
		echo $! >> "$T/pids.$1"
	done
}
storm_go() {
	local p waiting n
	n=$(wc -l < "$T/pids.$1")
	for _ in $(seq 3000); do
		waiting=0
		for p in $(cat "$T/pids.$1"); do
			[ "$(cat "/proc/$p/wchan" 2>/dev/null)" = wait_for_partner ] && waiting=$((waiting + 1))
		done
		[ "$waiting" -eq "$n" ] && break
		sleep 0.01
	done
	exec 9> "$T/gate.$1"
	exec 9>&-
}

# handlers_done CONF: waits until no handler runs with CONF (at most 30 s).
handlers_done() {
	for _ in $(seq 300); do pgrep -f "^$CORESINK --config $1 " > /dev/null || return 0; sleep 0.1; done
}

# storm_settle CONF: after a storm, waits until the handlers run with CONF are done (at most 30 s), then, a second
# later, crashes once more and waits for that crash's entry: its capture reports what the kernel dropped last (one
# handler a second looks, from the ledger).
storm_settle() {
	local p
	handlers_done "$1"
	sleep 1.1
	{ ( ulimit -c unlimited; exec "$CRASHER" -c storm-last 1 ) & p=$!; wait "$p"; } 2>/dev/null
	journal_entry "$p" > /dev/null || fail "no entry for the crash after the storm"
}

# storm_count PIDFILE SINCE: of the pids in PIDFILE, RECORDED have a crash entry, REPORTED are named in coresink's
# reports of the crashes the kernel dropped, BOTH are in both; all among entries written since SINCE (journalctl's
# --since). The lists are left in $T/recorded and $T/reported.
storm_count() {
	sort "$1" > "$T/want"
	journalctl --no-pager --since "$2" -o export "MESSAGE_ID=$MESSAGE_ID" | tr -d '\0' |
		sed -n 's/^COREDUMP_PID=//p' | sort -u | comm -12 "$T/want" - > "$T/recorded"
	journalctl --no-pager --since "$2" -o export "MESSAGE_ID=$DROPPED_ID" | tr -d '\0' |
		sed -n 's/^CORESINK_KERNEL_DROPPED_PROCESSES=//p' | tr ',' '\n' | sed -n 's/^ *\([0-9]*\) (.*/\1/p' |
		sort -u | comm -12 "$T/want" - > "$T/reported"
	RECORDED=$(wc -l < "$T/recorded") REPORTED=$(wc -l < "$T/reported")
	BOTH=$(comm -12 "$T/recorded" "$T/reported" | wc -l)
}

# apt_mirror: the Debian mirror this machine's own apt sources name (deb822 or one-line), for a tool that needs one
# (piuparts); never a host name of the tree's own.
apt_mirror() {
	{ sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null
	  sed -n 's/^deb \(\[[^]]*\] *\)\{0,1\}\([^ ]*\) .*/\2/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
	} | grep -v -m1 security
}

# os_release KEY: KEY's value in /etc/os-release (sourced in a subshell: its NAME= is not this test's).
os_release() { (. /etc/os-release && eval "echo \"\${$1:-}\""); }

# The packages of debian_root's default root, and of t-releases' (each release's systemd, coredumpctl and gdb).
ROOT_PKGS=systemd,systemd-coredump,dbus,libdw1,libelf1,libdebuginfod1,libzstd1,libacl1,libseccomp2,libsqlite3-0,libjson-c5,gdb,make,acl,zstd,procps
RELEASE_PKGS=systemd,systemd-coredump,systemd-sysv,dbus,gdb,acl,zstd,procps,jq,apt,util-linux

# root_tar CODENAME PACKAGES: ROOT_TAR set to a tarball of a minimal root of Debian's CODENAME with PACKAGES
# (comma-separated), built by mmdebstrap from Debian's packages unless the run has it: once per run of run.sh (in its
# CORESINK_ROOT_CACHE, where make check-all's static lane builds the tiers' roots ahead: tests/e2e/roots.sh), otherwise
# once per test. Built under a lock: a test that needs a root the static lane is building waits for it. Returns 1
# where it cannot be built, its reason in ROOT_WHY. The archive's Valid-Until is not checked: a mirror frozen at a
# date serves unstable's Release file past its week.
root_tar() {
	local cache=${CORESINK_ROOT_CACHE:-$T} log
	ROOT_TAR=$cache/root-$1-$(printf '%s' "$2" | cksum | cut -d' ' -f1).tar ROOT_WHY=""
	log=$ROOT_TAR.log
	exec 8> "$ROOT_TAR.lock"
	flock 8
	if [ ! -s "$ROOT_TAR" ]; then
		mmdebstrap --variant=minbase --format=tar --aptopt='Acquire::Check-Valid-Until "false"' \
			--include="$2" "$1" "$ROOT_TAR.part" > "$log" 2>&1 && mv "$ROOT_TAR.part" "$ROOT_TAR" ||
			ROOT_WHY="mmdebstrap could not build a $1 root (no Debian mirror?): $(tail -n 1 "$log")"
	fi
	exec 8>&-
	[ -z "$ROOT_WHY" ]
}

# debian_root DIR [CODENAME [PACKAGES]]: a minimal root of Debian's CODENAME (the host's release by default) in DIR,
# from root_tar: systemd (to boot), gdb (for coredumpctl debug), make, and what coresink links (ROOT_PKGS), or
# PACKAGES instead. The test is skipped where it cannot be built.
debian_root() {
	command -v mmdebstrap > /dev/null || skip "no mmdebstrap"
	[ "$(os_release ID)" = debian ] || skip "the container is built from Debian's packages of the host's release: not Debian"
	CODENAME=${2:-$(os_release VERSION_CODENAME)}
	root_tar "$CODENAME" "${3:-$ROOT_PKGS}" || skip "$ROOT_WHY"
	mkdir -p "$1" && tar -C "$1" -xpf "$ROOT_TAR" || fail "extracting $ROOT_TAR"
}

# boot_root ROOT [NSPAWN-ARGS...]: boots the systemd of ROOT as PID 1 in a container (systemd-nspawn -b), stopped at
# exit; waits until its manager says the boot is over. Sets NSPAWN (nspawn's pid), LEADER (the container's PID 1 as
# the host sees it), BOOT_STATE (running or degraded, else what it said) and BOOT_MS (from nspawn's start to then).
# inside CMD...: runs CMD in every namespace of the container. Without systemd on the host there is no bus to ask
# for a scope: the container stays in this cgroup. The container gets the unified cgroup hierarchy (cgroup v2) even
# where the host mounts v1: systemd 256 and later refuse to boot on v1 ("no longer supported").
boot_root() {
	local root=$1 keep="" t0 state p; shift
	[ -d /run/systemd/nspawn ] || at_exit "rm -rf /run/systemd/nspawn"
	[ -d /run/systemd/system ] || keep=--keep-unit
	t0=$(date +%s%N)
	SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 systemd-nspawn -q -b -D "$root" --register=no $keep "$@" < /dev/null > "$T/nspawn-${root##*/}.log" 2>&1 &
	NSPAWN=$!
	at_exit "stop_container $NSPAWN"
	LEADER=""
	for _ in $(seq 300); do
		for p in $(pgrep -P "$NSPAWN"); do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ] && LEADER=$p; done
		[ -n "$LEADER" ] && break
		sleep 0.1
	done
	[ -n "$LEADER" ] || { tail -n 5 "$T/nspawn-${root##*/}.log"; fail "the container's systemd did not start"; }
	# Until its manager answers (its bus is not there at first) and says the boot is over.
	for _ in $(seq 240); do
		state=$(inside systemctl is-system-running 2>&1)
		case $state in running|degraded) break ;; esac
		sleep 0.25
	done
	BOOT_STATE=$state BOOT_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}
inside() { nsenter -t "$LEADER" -a -- "$@"; }
# stop_container PID: the container's systemd asked to power off (SIGTERM to nspawn), then killed after 30 s.
stop_container() {
	kill -TERM "$1" 2>/dev/null
	for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null
}

# package_debs: the Debian package, built by 'make deb' (which runs lintian on it) into DEB, and the same package at
# a higher version into DEB2, to upgrade to: DEB unpacked and packed again with its control's Version raised, not
# the tree built a second time (40.4 s against 0.85 s, median of 3, idle, 2026-11-29): the upgrade tests the
# maintainer scripts and what dpkg keeps, which the files' bytes do not change. Built once per run of run.sh (a mark
# in its CORESINK_ROOT_CACHE).
package_debs() {
	local mark=${CORESINK_ROOT_CACHE:-$T}/debs-built deb version arch
	command -v dpkg-buildpackage > /dev/null || skip "no dpkg-buildpackage (dpkg-dev)"
	if [ ! -e "$mark" ]; then
		make -s -C "$TOP" deb B="$B" > "$T/deb.log" 2>&1 || { tail -n 30 "$T/deb.log"; fail "make deb"; }
		deb=$(echo "$B"/deb/coresink_*.deb)
		rm -rf "$B/deb2" "$T/deb2" && mkdir -p "$B/deb2" && dpkg-deb -R "$deb" "$T/deb2" ||
			fail "unpacking $deb"
		version=$(sed -n 's/^Version: //p' "$T/deb2/DEBIAN/control")+upgrade1
		arch=$(sed -n 's/^Architecture: //p' "$T/deb2/DEBIAN/control")
		sed -i "s/^Version: .*/Version: $version/" "$T/deb2/DEBIAN/control" &&
			dpkg-deb -b "$T/deb2" "$B/deb2/coresink_${version}_$arch.deb" > "$T/deb2.log" 2>&1 ||
			{ cat "$T/deb2.log"; fail "packing the later version"; }
		cp "$T/deb.log" "$B/deb/make-deb.log"
		touch "$mark"
	fi
	# (The debug symbols are coresink-dbgsym_*.ddeb: not matched.)
	DEB=$(echo "$B"/deb/coresink_*.deb) DEB2=$(echo "$B"/deb2/coresink_*.deb)
	[ -s "$DEB" ] && [ -s "$DEB2" ] || fail "no package built"
}

# ledger_record DIR PID [STORED]: sets REC to the words of the record in DIR's ledger that names crash PID (its 7th
# word; the 2nd is its handler's pid, the 12th whether its core was stored, which must be STORED where given), or to
# none. The one reader of a record here; bash alone reads the file, no process started: await_handler polls it in a
# tight loop, and on a loaded machine (CI) a 287 MiB dump ended between two polls that each started awk and stat
# (0.7 s apart beside two busy loops here).
ledger_record() {
	local w
	REC=()
	[ -r "$1/.coresink.state" ] || return 0
	while read -ra w; do
		[ "${w[0]:-}" = inflight ] && [ "${w[6]:-}" = "$2" ] && { [ -z "${3:-}" ] || [ "${w[11]:-}" = "$3" ]; } &&
			REC=("${w[@]}") && return 0
	done < "$1/.coresink.state"
	return 0
}

# record_of DIR PID: "HANDLER BYTES" of crash PID's capture in DIR's ledger (what it holds by its chunk's end); a lazy
# record's (its 18th word: its handler alone, writing no progress: docs/design.md) as another capture counts it: what
# the handler's files without a name hold, and a chunk ahead (its 19th). One find for all the files: killed_at reads
# this with the handler stopped.
record_of() {
	local h b n blocks
	ledger_record "$1" "$2"
	h=${REC[1]:-} b=${REC[3]:-}
	[ -n "$h" ] || return 0
	if [ "${REC[17]:-n}" = y ]; then
		b=${REC[18]:-0}
		while read -r n blocks; do
			[ "$n" = 0 ] && b=$((b + blocks * 512))
		done < <(find -L /proc/"$h"/fd -mindepth 1 -maxdepth 1 -type f -printf '%n %b\n' 2>/dev/null)
	fi
	echo "$h $b"
}

# await_handler DIR PID [STORED]: sets HANDLER to the pid of the handler whose record names crash PID (ledger_record),
# polled every 2 ms for up to a minute (the crashing program may fill a GiB first), or to nothing.
await_handler() {
	HANDLER=""
	for _ in $(seq 30000); do
		ledger_record "$@"
		HANDLER=${REC[1]:-}
		[ -n "$HANDLER" ] && return 0
		nap 0.002
	done
}

# nap SECONDS: a sleep in bash itself (a read on a pipe nobody writes), not a process started: see ledger_record.
nap() {
	[ -n "${NAP_FD:-}" ] || exec {NAP_FD}<> <(:)
	read -r -t "$1" -u "$NAP_FD" _ || :
}

# wait_caught PID SIG: until PID catches SIG (its SigCgt), 10 s at most: a program started in the background is
# ready for the signal that crashes it, not killed by its default action. Whether it came to.
wait_caught() {
	local bit=$(( 1 << ($(kill -l "$2") - 1) )) mask
	for _ in $(seq 1000); do
		mask=$(sed -n 's/^SigCgt:\t//p' "/proc/$1/status" 2>/dev/null) || return 1
		[ -n "$mask" ] && [ $(( 0x$mask & bit )) -ne 0 ] && return 0
		sleep 0.01
	done
	return 1
}

# killed_at DIR MIB CMD...: CMD crashes; once its capture in DIR holds MIB MiB (the ledger says, chunk by chunk),
# its handler is stopped (SIGSTOP) so that the dump waits where it is, the process is killed (SIGKILL: the kernel
# stops the dump), and the handler goes on. The handler is stopped as soon as its record names the crash (bash
# alone polls for it: await_handler), and within 256 MiB of the mark it goes on in steps, stopped while the ledger is
# read: a poll slowed by a loaded machine (CI) let a 2 GiB dump end before its late mark was seen (its rest takes
# the handler a fraction of a second), a free-running handler went 117 to 376 MiB past a mark between two reads on
# an idle one, and a 287 MiB dump ended before its handler's record was first seen (CI's stop 83, and 3 of 4 runs
# beside two busy loops here). Sets CRASH_PID, E (the entry), CORE, and SEEN (coresinkctl list and status while it
# dumped, where the test set CTL).
killed_at() {
	local dir=$1 at=$(($2 * 1024 * 1024)) rec="" h="" b
	shift 2
	{ ( ulimit -c unlimited; exec "$@" ) > /dev/null & CRASH_PID=$!; } 2>/dev/null
	await_handler "$dir" "$CRASH_PID"
	[ -n "$HANDLER" ] && kill -STOP "$HANDLER" 2>/dev/null && h=$HANDLER
	for _ in $(seq 6000); do
		[ -n "$h" ] && kill -STOP "$h" 2>/dev/null
		rec=$(record_of "$dir" "$CRASH_PID")
		[ -n "$rec" ] && [ "${rec#* }" -ge "$at" ] && break
		[ -n "$h" ] && kill -CONT "$h" 2>/dev/null
		kill -0 "$CRASH_PID" 2>/dev/null || break
		h=""
		[ -n "$rec" ] && [ "${rec#* }" -ge $((at - (256 << 20))) ] && h=${rec%% *}
		nap 0.005
	done
	read -r h b <<< "$rec"
	[ -n "${b:-}" ] && [ "$b" -ge "$at" ] || fail "the capture of $CRASH_PID never held $((at >> 20)) MiB (ledger: '$rec')"
	kill -STOP "$h"
	[ -z "${CTL+x}" ] || SEEN=$("${CTL[@]}" list 2>&1; "${CTL[@]}" status 2>&1)
	kill -KILL "$CRASH_PID"
	kill -CONT "$h"
	{ wait "$CRASH_PID"; } 2>/dev/null
	E=$(entry_where "COREDUMP_PID=$CRASH_PID") || fail "no entry for the killed $CRASH_PID"
	entry_message "$CRASH_PID" > "$T/msg"
	CORE=$(field "$E" COREDUMP_FILENAME)
}
