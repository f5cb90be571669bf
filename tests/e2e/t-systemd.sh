#!/bin/bash
# Under a real systemd: Debian's systemd booted as PID 1 in a container (systemd-nspawn -b) on a Debian root that
# mmdebstrap builds from Debian's packages, coresink installed into it by 'make install DESTDIR=' and enabled there
# by the README's commands. Crashes of real processes, started by that systemd as services of a user, go through the
# kernel to the socket systemd holds, start coresink.service on demand and are handled under the unit's own sandbox:
# stored, compressed, traced as the user, readable by the user (ACL), in the user's journal for coredumpctl info and
# debug; a stripped program's frames named by DebuginfodURLs= through the door (coresink-net@.service), the fetched
# files opened by the server under the unit's seccomp filters; refused before the dump for RLIMIT_CORE 0, KeepFree
# and the rate limit. A storm across a restart of the service and across a stop and start of the socket loses no
# crash. The unit's exposure is no worse than systemd-coredump@.service's on the same systemd.
# What a container cannot show, and why: kernel.core_pattern is the host's, the kernel takes "@@" only from the
# initial mount namespace and runs a "|" helper in the host's namespaces. So 'make enable' in the container refuses
# and says why (tested), and this test does the host's part: the container's socket directory is bound at a host
# path and the host's kernel.core_pattern points at it (put back at exit). Pipe mode under systemd needs a VM.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it boots a container and sets kernel.core_pattern"
need_socket_mode
command -v systemd-nspawn > /dev/null || skip "no systemd-nspawn (Debian's systemd-container)"
scratch
ROOT=$T/root
SOCKDIR=$T/run-coresink
UNIT_DIR=/usr/local/lib/systemd/system

# 1. The root: Debian's systemd and what coresink links, gdb for coredumpctl debug, make for 'make enable'.
t0=$(date +%s)
debian_root "$ROOT"
make -s -C "$TOP" install DESTDIR="$ROOT" B="$B" > "$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install DESTDIR"; }
chroot "$ROOT" useradd -m -u 1000 tester || fail "useradd"
cp "$CRASHER" "$ROOT/usr/local/bin/crasher"
cp "$CRASHER" "$ROOT/usr/local/bin/crasher-rl"
install -m 0700 "$CRASHER" "$ROOT/root/crasher"
mkfifo -m 0666 "$ROOT/var/tmp/gate"
mkdir -p "$ROOT/var/log/journal"
echo cs-e2e > "$ROOT/etc/hostname"
mkdir -m 0700 "$SOCKDIR"
ok "a $CODENAME root with coresink installed in $(( $(date +%s) - t0 )) s"

# 2. Boot.
boot_root "$ROOT" --capability=CAP_CHECKPOINT_RESTORE --bind="$SOCKDIR:/run/coresink" --bind-ro="$TOP:/src"
state=$BOOT_STATE
check "systemd booted as PID 1 in the container: $state" test "$state" = running -o "$state" = degraded
[ "$state" = running ] || inside systemctl --failed --no-pager --no-legend | sed 's/^/     failed: /'
check "the analysis user was made by systemd-sysusers from the installed sysusers.d entry" \
	inside id -u coresink-analysis

# 3. Enabled by the README's commands.
inside systemctl enable --now coresink.socket > "$T/enable.log" 2>&1
check "systemctl enable --now coresink.socket" inside systemctl is-active -q coresink.socket
check "the socket is root's, 0600, in the 0700 directory" \
	test "$(stat -c '%a %u %F' "$SOCKDIR/kernel.socket")" = "600 0 socket"
before=$(cat /proc/sys/kernel/core_pattern)
inside make -s -C /src enable > "$T/make-enable.log" 2>&1
check "make enable in a container refuses" test $? -ne 0
check "and says why: $(cat "$T/make-enable.log")" has "$(cat "$T/make-enable.log")" "in a container"
check "and leaves kernel.core_pattern alone" test "$(cat /proc/sys/kernel/core_pattern)" = "$before"
check "coresink --core-pattern --socket names the socket systemd holds" \
	test "$(inside /usr/local/libexec/coresink --core-pattern --socket)" = "@@/run/coresink/kernel.socket"
at_exit "printf '%s\n' '$before' > /proc/sys/kernel/core_pattern"
printf '@@%s/kernel.socket\n' "$SOCKDIR" > /proc/sys/kernel/core_pattern || fail "core_pattern"

# run_crash UNIT LIMIT [CRASHER ARGS]: a crash of a process of tester's, started by the container's systemd as
# UNIT with LimitCORE=LIMIT; waits for it to end.
run_crash() {
	local unit=$1 limit=$2; shift 2
	inside systemd-run -q --wait --unit="$unit" --uid=tester -p LimitCORE="$limit" -p WorkingDirectory=/tmp \
		"${@:-/usr/local/bin/crasher}" > /dev/null 2>&1
}
# The journal read is the container's: lib.sh's lookups (entry_where) read it through this.
jctl() { inside journalctl --no-pager --since "${JCTL_SINCE:-$TEST_SINCE}" "$@"; }
# entry UNIT: the crash entry of UNIT's process, from the container's journal (export format), waited for.
entry() { entry_where "COREDUMP_UNIT=$1.service"; }
# conf KEY=VALUE...: the container's /etc/coresink.conf, read anew by every capture.
conf() { write_config "$ROOT/etc/coresink.conf" "$@"; }
conf "KeepFree=1%" "MaxUse=100%" "Compress=yes"

# 4. One crash, stored: the service started on demand, the core compressed, traced, readable by its owner.
run_crash crash-stored infinity /usr/local/bin/crasher 8
e=$(entry crash-stored) || fail "no entry for the crash"
core=$(field "$e" COREDUMP_FILENAME)
check "coresink.service was started by the socket" inside systemctl is-active -q coresink.service
check "the entry has the crash's facts as systemd sees them" all_of "$e" "COREDUMP_UID=1000" \
	"COREDUMP_GID=1000" "COREDUMP_SIGNAL=11" "COREDUMP_SIGNAL_NAME=SIGSEGV" "COREDUMP_COMM=crasher" \
	"COREDUMP_EXE=/usr/local/bin/crasher" "COREDUMP_UNIT=crash-stored.service" "COREDUMP_HOSTNAME=cs-e2e" \
	"COREDUMP_CGROUP=/system.slice/crash-stored.service" "CORESINK_MODE=socket" "CORESINK_RESULT=stored"
check "stored compressed: $core" matches "$core" '^/var/lib/coresink/core\.crasher\.[0-9]+\.[0-9TZ]+\.zst$'
zstd -dcq "$ROOT$core" > "$T/raw" 2>/dev/null
check "which decompresses to the process's memory" "$PATCHECK" "$T/raw" 8
check "the crashing user may read it (ACL): $(getfacl -cp "$ROOT$core" 2>/dev/null | grep '^user:[0-9a-z]' | tr '\n' ' ')" \
	inside runuser -u tester -- zstd -tq "$core"
msg=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" COREDUMP_UNIT=crash-stored.service)
check "the stack trace was made under the unit's sandbox" has "$msg" "crash_here"
check "no analysis problem reported" lacks "$e" "CORESINK_TRACE="
check "made beneath the process's own root (the unit's mount namespace is not the process's): $(field "$e" \
	CORESINK_TRACE_SANDBOX)" has "$(field "$e" CORESINK_TRACE_SANDBOX)" "process-root"
pid=$(field "$e" COREDUMP_PID)
info=$(inside runuser -u tester -- coredumpctl info --no-pager --since "$TEST_SINCE" "$pid" 2>&1)
check "coredumpctl info, as the user, from the user's persistent journal" has "$info" "crash_here"
check "the user's entry is in the user's journal file" \
	test -n "$(find "$ROOT/var/log/journal" -name 'user-1000*.journal' -size +0)"
bt=$(inside runuser -u tester -- coredumpctl debug --no-pager --since "$TEST_SINCE" "$pid" --debugger-arguments="-batch -ex bt" 2>&1)
check "coredumpctl debug, as the user: gdb shows the crashing frame" has "$bt" "crash_here"

# A root program under /root (0700), analysed as coresink-analysis: read from its mapping (map_files, which the unit's
# CAP_CHECKPOINT_RESTORE allows), not by its path, which that user may not follow.
inside systemd-run -q --wait --unit=crash-root -p LimitCORE=infinity /root/crasher > /dev/null 2>&1
e=$(entry crash-root) || fail "no entry for root's crash under /root"
msg=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" COREDUMP_UNIT=crash-root.service)
check "a root program under /root: the trace names crash_here ($(field "$e" CORESINK_TRACE_FILES))" \
	matches "$msg" "^#0  0x[0-9a-f]{16} crash_here \(crasher \+ 0x[0-9a-f]+\)$"
check "and every module was read" lacks "$e" "CORESINK_TRACE_UNREAD="
check "every file with code opened from its mapping, not only the executable (/proc/PID/exe, without the capability)" \
	matches "$e" "^CORESINK_TRACE_FILES=[2-9] opened from the mappings$"

# A process with a host name of its own (a UTS namespace, as in a container): the server may not join it without
# CAP_SYS_ADMIN, which the unit does not grant; the entry says so rather than naming the server's host.
run_crash crash-uts infinity /usr/bin/unshare --user --map-root-user --uts /bin/sh -c \
	'hostname elsewhere && exec /usr/local/bin/crasher'
e=$(entry crash-uts) || fail "no entry for the crash in a UTS namespace"
check "a crash with a host name of its own: stored" has_line "$e" "CORESINK_RESULT=stored"
check "and no host name that is not its own, but why: $(field "$e" CORESINK_HOSTNAME)" test -z \
	"$(field "$e" COREDUMP_HOSTNAME)" -a -n "$(field "$e" CORESINK_HOSTNAME | grep 'needs CAP_SYS_ADMIN')"

# DebuginfodURLs= under the units: a stripped program and its library, their debug files served by elfutils'
# debuginfod on the loopback the container shares with the host. The fetch goes through the door
# (coresink-net.socket starts coresink-net@.service, which has the network), and the server, under its own
# sandbox (RestrictSUIDSGID= refuses it openat2()), opens what was fetched for the analysis: every frame named.
if command -v debuginfod > /dev/null && command -v objcopy > /dev/null; then
	mkdir -p "$ROOT/usr/local/lib/door"
	stripped_pair "$T/door" door-dump /usr/local/lib/door
	cp "$T/door/door-dump" "$ROOT/usr/local/bin/" && cp "$T/door/libdoor.so" "$ROOT/usr/local/lib/door/"
	PORT=$(( 20000 + ($$ * 7) % 20000 ))
	serve_debuginfo "$T/door/served" "$PORT" "$T/door/door-dump"
	conf "KeepFree=1%" "MaxUse=100%" "Compress=yes" "DebuginfodURLs=http://127.0.0.1:$PORT" "DebuginfodTimeoutSec=30s"
	inside systemd-run -q --wait --unit=crash-door -p LimitCORE=infinity /usr/local/bin/door-dump > /dev/null 2>&1
	e=$(entry crash-door) || fail "no entry for the stripped program's crash"
	check "DebuginfodURLs= under the units: both fetched through the door: $(field "$e" CORESINK_DEBUGINFO | cut -c1-120)" \
		matches "$(field "$e" CORESINK_DEBUGINFO)" "fetched 2: "
	check "by coresink-net@.service, a unit of its own: $(jctl -q -o cat -u 'coresink-net@*' | grep -m1 '^Started')" \
		test -n "$(jctl -q -o cat -u 'coresink-net@*' | grep -m1 '^Started')"
	frames=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" COREDUMP_UNIT=crash-door.service | sed -n '/^Stack trace of thread/,/^$/p' |
		sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^ ]*\) .*/\1/p' | head -n 3 | tr '\n' ' ')
	check "and the trace names every frame from what was fetched: $frames" test "$frames" = "door_crash door_level main "
	stop_started DEBUGINFOD_PID
	conf "KeepFree=1%" "MaxUse=100%" "Compress=yes"
fi

# 5. Refused before the dump.
run_crash crash-rlimit 0
e=$(entry crash-rlimit) || fail "no entry for the crash under LimitCORE=0"
check "LimitCORE=0: skipped before the dump, journaled" all_of "$e" "CORESINK_RESULT=skipped" \
	"CORESINK_REJECTED=1" "COREDUMP_RLIMIT=0" "CORESINK_SIZE=0"
conf "KeepFree=99%" "Compress=yes"
run_crash crash-keepfree infinity
e=$(entry crash-keepfree) || fail "no entry for the crash under KeepFree=99%"
check "KeepFree=99%: refused before the dump, journaled" all_of "$e" "CORESINK_RESULT=discarded" \
	"CORESINK_LIMIT=KeepFree" "CORESINK_REJECTED=1"
conf "KeepFree=1%" "MaxUse=100%" "Compress=yes" "RateLimitBurst=2"
for i in 1 2 3; do run_crash "crash-rate-$i" infinity /usr/local/bin/crasher-rl; done
e=$(entry crash-rate-3) || fail "no entry for the third crash of crasher-rl"
check "RateLimitBurst=2: the third crash of one executable is suppressed before the dump" all_of "$e" \
	"CORESINK_RESULT=suppressed" "CORESINK_REJECTED=1"
check "the first two were stored" all_of "$(entry crash-rate-2)" "CORESINK_RESULT=stored"

# 6. Storms across a restart of the service, then across a stop and start of the socket: N crashes at once (each
# waits at a FIFO), one handled at a time so that most wait in the socket's queue while systemd acts.
N=30
conf "KeepFree=1%" "MaxUse=100%" "Compress=yes" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "SocketMaxParallel=1"
# results NAME: CORESINK_RESULT of each crash entry of units NAME-*, a line each.
results() {
	jctl -o json "MESSAGE_ID=$MESSAGE_ID" |
		jq -r --arg n "$1-" 'select((.COREDUMP_UNIT // "") | startswith($n)) | .CORESINK_RESULT'
}
# storm NAME ACTION...: N crashes released at once, ACTION run 1 s later; prints how many of N were stored, once
# all are or after 120 s.
storm() {
	local name=$1 waiting n=0; shift
	for i in $(seq "$N"); do
		inside systemd-run -q --no-block --unit="$name-$i" --uid=tester -p LimitCORE=infinity \
			/usr/local/bin/crasher -W /var/tmp/gate 16 > /dev/null 2>&1
	done
	# Every crasher waits at the FIFO before it is opened: one that comes later would wait there for good.
	for _ in $(seq 300); do
		waiting=$(inside sh -c 'for w in /proc/[0-9]*/wchan; do echo "$(cat "$w" 2> /dev/null)"; done' |
			grep -c '^wait_for_partner$')
		[ "$waiting" -ge "$N" ] && break
		sleep 0.1
	done
	exec 9> "$ROOT/var/tmp/gate"
	exec 9>&-
	sleep 1
	"$@" > /dev/null 2>&1
	for _ in $(seq 120); do
		n=$(results "$name" | grep -c '^stored$')
		[ "$n" -ge "$N" ] && break
		sleep 1
	done
	echo "$n $(results "$name" | sort | uniq -c | tr -s ' \n' ' ')"
}
read -r stored all < <(storm storm-restart inside systemctl restart coresink.service)
check "systemctl restart coresink.service during a storm: $stored of $N stored (entries: $all)" test "$stored" -eq "$N"
read -r stored all < <(storm storm-socket inside sh -c 'systemctl stop coresink.socket && systemctl start coresink.socket')
check "systemctl stop, then start coresink.socket during a storm: $stored of $N stored (entries: $all)" \
	test "$stored" -eq "$N"
check "the socket is back" inside systemctl is-active -q coresink.socket

# 7. The unit's exposure, beside systemd-coredump's own on the same systemd.
score() { inside systemd-analyze security --no-pager "$1" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'; }
ours=$(score coresink.service) theirs=$(score systemd-coredump@.service)
check "systemd-analyze security: coresink.service $ours, systemd-coredump@.service $theirs" \
	awk -v a="$ours" -v b="$theirs" 'BEGIN { exit !(a != "" && b != "" && a + 0 <= b + 0) }'
