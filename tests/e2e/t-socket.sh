#!/bin/bash
# Socket mode: real crashes through the kernel's coredump socket (core_pattern "@@", Linux 6.17) to coresink
# --serve. A stored core is the process's memory, gdb reads it, its entry is complete; RLIMIT_CORE=0, the rate limit
# and a full disk are refused before the dump (no byte written, the process let go at once) and journaled; a client
# that is not a crash is refused; a server killed mid-dump leaves nothing behind and the next one stores; the
# deadline stops a capture that hangs.
# tier: fast (make check, and make check-all)
# journald: both (run again with a journald the test did not start: what it checks depends on whose it is)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts a server"
need_socket_mode
scratch
start_journald
MIB=$((1024 * 1024))
SOCK=$T/sock/kernel.socket

# timed_crash MIB LIMIT [ARGS]: a crash of MIB MiB under ulimit -c LIMIT, its entry waited for. Sets CRASH_PID,
# CRASH_STATUS and CRASH_US, the time from the crash to the parent's wait returning.
timed_crash() {
	local mib=$1 limit=$2 t1; shift 2
	( ulimit -c "$limit"; exec "$CRASHER" -t "$@" "$mib" ) > "$T/t0" 2>/dev/null &
	CRASH_PID=$!
	{ wait "$CRASH_PID"; CRASH_STATUS=$?; } 2>/dev/null
	t1=$(date +%s%N)
	CRASH_US=$(( (t1 - $(cat "$T/t0")) / 1000 ))
	crash_log "$CRASH_PID" > /dev/null
}

ms() { awk -v u="$1" 'BEGIN { printf "%.1f ms", u / 1000 }'; }

write_config "$T/c.conf" "Directory=$T/cores" "Socket=$SOCK" "KeepFree=64M" "RateLimitBurst=4" "RateLimitIntervalSec=3600"
start_server "$T/c.conf"
check "the socket is root's, 0600, in a 0700 directory" \
	test "$(stat -c '%a %u %F' "$SOCK") $(stat -c '%a %u' "$T/sock")" = "600 0 socket 700 0"
check "--core-pattern --socket prints the @@ line" test "$("$CORESINK" --config "$T/c.conf" --core-pattern --socket)" = "@@$SOCK"
use_socket "$T/c.conf"

# A crash, stored.
timed_crash 64 unlimited
stored_small_us=$CRASH_US
check "stored: the crasher died of SIGSEGV with a core (139)" test "$CRASH_STATUS" -eq 139
core=$(only_file "$T/cores") || exit 1
check_stored stored "$core" 64
e=$(journal_entry "$CRASH_PID") || fail "no entry for $CRASH_PID"
check "stored: one entry" test "$(printf '%s\n' "$e" | grep -c '^MESSAGE_ID=')" -eq 1
check "stored: the entry has what pipe mode's has" all_of "$e" "COREDUMP_PID=$CRASH_PID" "COREDUMP_UID=0" \
	"COREDUMP_GID=0" "COREDUMP_SIGNAL=11" "COREDUMP_SIGNAL_NAME=SIGSEGV" "COREDUMP_CODE=1" "COREDUMP_COMM=crasher" \
	"COREDUMP_EXE=$CRASHER" "COREDUMP_HOSTNAME=$(hostname)" "COREDUMP_RLIMIT=$UNLIMITED" "COREDUMP_DUMPABLE=1" \
	"COREDUMP_FILENAME=$core" "CORESINK_RESULT=stored" "CORESINK_MODE=socket"
check "stored: /proc was read from the held process" has_line "$e" "COREDUMP_CMDLINE=$CRASHER -t 64"
check "stored: its cwd" has_line "$e" "COREDUMP_CWD=$PWD"
check "stored: its maps" has "$e" "COREDUMP_PROC_MAPS"
check "stored: the trace names crash_here" has "$(entry_message "$CRASH_PID")" "crash_here"
check "stored: not marked as rejected" lacks "$e" "CORESINK_REJECTED"
# Stored as it is (the tests' Compress=no): ReadAhead=auto's thread reads the core from its first byte.
check "stored: read ahead by a thread from the first byte" has_line "$e" \
	"CORESINK_READ_AHEAD=by a thread from byte 0 of $(field "$e" CORESINK_EXTENT)"
rm -f "$T"/cores/core.*

# RLIMIT_CORE=0 is refused before the dump: the kernel writes nothing and lets the process go at once. Timed
# against the same 512 MiB crash stored.
timed_crash 512 unlimited
stored_us=$CRASH_US
rm -f "$T"/cores/core.*
timed_crash 512 0
check "ulimit -c 0: the process died of SIGSEGV without a core (139)" test "$CRASH_STATUS" -eq 139
check "ulimit -c 0: no file" test -z "$(entries "$T/cores")"
e=$(journal_entry "$CRASH_PID") || fail "no entry for $CRASH_PID"
check "ulimit -c 0: journaled as skipped, rejected before the dump, with its signal" all_of "$e" \
	"CORESINK_RESULT=skipped" "CORESINK_REJECTED=1" "COREDUMP_RLIMIT=0" "COREDUMP_SIGNAL=11" "CORESINK_SIZE=0"
check "ulimit -c 0: the message says so" has "$(field "$e" MESSAGE)" "The kernel was told before the dump"
ok "512 MiB crash to exit: rejected $(ms "$CRASH_US"), stored $(ms "$stored_us") (64 MiB stored: $(ms "$stored_small_us"))"

# A limit below the core's size is enforced by the server (the kernel ignores RLIMIT_CORE in socket mode).
timed_crash 64 $((8 * 1024))
core=$(only_file "$T/cores") || exit 1
e=$(journal_entry "$CRASH_PID") || fail "no entry for $CRASH_PID"
check "ulimit -c 8 MiB: truncated at the limit by the server" all_of "$e" "CORESINK_RESULT=truncated" \
	"CORESINK_LIMIT=RLIMIT_CORE"
# Its last bytes give way to the thread's stack (EarlyStacks=): the file stays within the limit, all but a few pages.
check "ulimit -c 8 MiB: the file holds what the entry says, within 8 MiB, its stack kept" \
	test "$(file_size "$core")" -le $((8 * MIB)) -a "$(file_size "$core")" -gt $((8 * MIB - 65536)) -a \
	"$(field "$e" CORESINK_SIZE)" = "$(file_size "$core")" -a -n "$(grep '^CORESINK_STACKS=.*kept in place' <<< "$e")"
rm -f "$T"/cores/core.*

# The rate limit (4 per executable per minute: the three stored above count): the fifth is refused.
crash 16
crash 16
e=$(journal_entry "$CRASH_PID") || fail "no entry for $CRASH_PID"
why=$(field "$e" CORESINK_SIGNAL_UNKNOWN)
check "rate limit: suppressed before the dump, journaled, signal $(field "$e" COREDUMP_SIGNAL)${why:+ ($why)}" \
	all_of "$e" "CORESINK_RESULT=suppressed" \
	"CORESINK_REJECTED=1" "COREDUMP_SIGNAL=11"
check "rate limit: only the allowed crash was stored" test "$(entries "$T/cores" | wc -l)" -eq 1
stop_server
rm -f "$T"/cores/core.*

# A full disk: under KeepFree from the start, and nothing to remove. Refused before the dump.
fs=$T/small
mount_tmpfs "$fs" 64M
write_config "$T/full.conf" "Directory=$fs/cores" "Socket=$SOCK" "KeepFree=32M"
head -c $((40 * MIB)) /dev/zero > "$fs/filler"
start_server "$T/full.conf"
timed_crash 64 unlimited
e=$(journal_entry "$CRASH_PID") || fail "no entry for $CRASH_PID"
check "KeepFree: refused before the dump, journaled" all_of "$e" "CORESINK_RESULT=discarded" \
	"CORESINK_LIMIT=KeepFree" "CORESINK_REJECTED=1"
check "KeepFree: no file" test -z "$(entries "$fs/cores")"
check "KeepFree: the free space is untouched ($(avail "$fs") B)" test "$(avail "$fs")" -ge $((24 * MIB - 65536))
ok "64 MiB crash refused for KeepFree: $(ms "$CRASH_US") from crash to exit"
stop_server

# Something that is not a crash connects: refused and logged, without an answer; the server goes on.
write_config "$T/c.conf" "Directory=$T/cores" "Socket=$SOCK" "KeepFree=64M" "RateLimitBurst=0"
start_server "$T/c.conf"
kmsg_mark
got=$("$SOCKPEER" "$SOCK" "forged request of sixteen bytes")
check "a client that is not a crash gets nothing back" test "$got" = 0
for _ in $(seq 50); do
	r=$(jctl -o cat -t coresink 2>/dev/null | grep -F "Refused a connection to the coredump socket") && break
	sleep 0.1
done
check "and is logged as refused" has "${r:-}" "not a crashing task"
crash 16
check "the next crash is stored" test "$(entries "$T/cores" | wc -l)" -eq 1
rm -f "$T"/cores/core.*

# The server and its handlers killed mid-dump: the kernel stops, the process goes, the hidden file with them.
# (The shell's notice of the crash is expected: kept out of the output.)
{
	( ulimit -c unlimited; exec "$CRASHER" 1024 ) &
	victim=$!
	for _ in $(seq 100); do
		[ -n "$(pgrep -P "$SERVER_PID")" ] && break
		sleep 0.05
	done
	sleep 0.3
	kill -KILL -- "-$SERVER_PID"
	wait "$SERVER_PID"
	SERVER_PID=""
	for _ in $(seq 100); do kill -0 "$victim" 2>/dev/null || break; sleep 0.05; done
	check "killed mid-dump: the crashed process is let go" bash -c "! kill -0 $victim 2>/dev/null"
	wait "$victim"
} 2>/dev/null
check "killed mid-dump: no file, hidden or not, remains" test -z "$(entries "$T/cores")"
check "killed mid-dump: no space is held by it" test "$(du -s -B1 "$T/cores" | cut -f1)" -lt $MIB
start_server "$T/c.conf"
crash 16
core=$(only_file "$T/cores") || exit 1
check "restarted: the next crash is stored" "$PATCHECK" "$core" 16
stop_server
rm -f "$T"/cores/core.*

# A capture that runs past SocketTimeoutSec is killed: one entry says so, the process is let go.
write_config "$T/slow.conf" "Directory=$T/cores" "Socket=$SOCK" "SocketTimeoutSec=300ms" "StackTrace=no" "RateLimitBurst=0"
start_server "$T/slow.conf"
crash 2048
e=$(journal_entry "$CRASH_PID") || fail "no entry for $CRASH_PID"
check "deadline: the crash has one entry, failed at the deadline" all_of "$e" "CORESINK_RESULT=failed" \
	"CORESINK_MODE=socket"
check "deadline: it names SocketTimeoutSec" has "$(field "$e" CORESINK_ERROR)" "SocketTimeoutSec"
check "deadline: no file remains" test -z "$(entries "$T/cores")"
check "deadline: the server says so" has "$(cat "$T/server.log")" "ran past SocketTimeoutSec"
stop_server
check "stopped: the server removed its socket" test ! -e "$SOCK"

# Socket activation, as coresink.socket does it: systemd-socket-activate listens and starts the server on the first
# connection, passing the socket (sd_listen_fds); that first connection is the crash.
if command -v systemd-socket-activate > /dev/null; then
	mkdir -m 0700 "$T/act"
	write_config "$T/act.conf" "Directory=$T/cores" "Socket=$T/act/kernel.socket" "RateLimitBurst=0"
	: > "$T/server.log"
	setsid systemd-socket-activate -l "$T/act/kernel.socket" "$CORESINK" --config "$T/act.conf" --serve \
		>> "$T/server.log" 2>&1 &
	SERVER_PID=$!
	for _ in $(seq 50); do [ -S "$T/act/kernel.socket" ] && break; sleep 0.1; done
	use_socket "$T/act.conf"
	crash 16
	core=$(only_file "$T/cores") || exit 1
	check "socket activation: the first crash starts the server and is stored" "$PATCHECK" "$core" 16
	check "socket activation: the server took the socket systemd passed" \
		has "$(cat "$T/server.log")" "serving the coredump socket passed by systemd"
	crash 16
	check "socket activation: the next crash is stored by the same server" test "$(entries "$T/cores" | wc -l)" -eq 2
	stop_server
	check "socket activation: a passed socket is left to whoever passed it" test -S "$T/act/kernel.socket"
fi
