#!/bin/bash
# An unprivileged user (uid 54321) attacks crash capture for real, the ways issue 21 found: it holds every file of
# the core directory it can open (flock, shared and exclusive, the directory too), it storms SIGSTOP and SIGKILL at
# every process it may signal, and it holds its own core open and locked against vacuum. Against kernel-spawned
# handlers (pipe mode) and the socket server: every crash, root's and its own, is released in its usual time and
# stored with a complete entry; its core is vacuumed when room is needed. Then the analysis of a root crash is
# caught while it runs and read from /proc (uid, namespaces, capabilities, seccomp, mounts, not dumpable), and made
# to crash: its crash is not dumped back into coresink.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and acts as another user"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
command -v flock >/dev/null || skip "no flock (util-linux)"
grep -q '^coresink-analysis:' /etc/passwd || skip "no user coresink-analysis (tests/e2e/run.sh makes it)"
scratch
# As /var/lib is: the attacker may reach the core directory, as on a real machine.
chmod 0755 "$T"
start_journald
EVIL=54321
ANALYST=$(id -u coresink-analysis)

# evil CMD...: CMD as the attacker, in the background, in a session of its own (its group is its pid), killed at
# exit or by evil_stop.
EVIL_GROUPS=()
evil() {
	setsid setpriv --reuid=$EVIL --regid=$EVIL --clear-groups "$@" > /dev/null 2>&1 &
	EVIL_GROUPS+=("$!")
	at_exit "kill -KILL -- -$! 2>/dev/null"
}
evil_stop() {
	local g
	for g in "${EVIL_GROUPS[@]}"; do kill -KILL -- "-$g" 2>/dev/null; done
	for g in "${EVIL_GROUPS[@]}"; do { wait "$g"; } 2>/dev/null; done
	EVIL_GROUPS=()
}

# reaped PID: whether PID, a child of this shell, is dead (a zombie, or gone).
reaped() { [ ! -e "/proc/$1" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }

# crash_as WHO MIB: a real crash of WHO (root, or evil: the attacker's own) holding MIB MiB. Sets CRASH_PID,
# RELEASE_MS (from the crash to its death: the kernel holds it until its handler has read the core; at most 60 s
# are waited for) and ENTRY, its crash entry ("" when none came).
crash_as() {
	local t1 as=""
	[ "$1" = evil ] && as="setpriv --reuid=$EVIL --regid=$EVIL --clear-groups"
	# The shell's own "Segmentation fault" notice, when it reaps the process, is expected: kept out of the output.
	{
		( ulimit -c unlimited; exec $as "$CRASHER" -t "$2" ) > "$T/t0" &
		CRASH_PID=$!
		for _ in $(seq 1200); do reaped "$CRASH_PID" && break; sleep 0.05; done
		t1=$(date +%s%N)
		# Not released: the attack holds it. Ended, so that the test can say so and go no further.
		reaped "$CRASH_PID" || { echo "crash $CRASH_PID of $1 not released after 60 s" >&3; evil_stop; }
		wait "$CRASH_PID"
	} 2>/dev/null 3>&1
	RELEASE_MS=$(( (t1 - $(cat "$T/t0")) / 1000000 ))
	ENTRY=$(journal_entry "$CRASH_PID") || ENTRY=""
}

# stored_whole LABEL: the last crash was released within LIMIT_MS and stored whole, its entry complete: its file
# there, the process's metadata, and for root a trace made in the full sandbox.
stored_whole() {
	local file
	file=$(field "$ENTRY" COREDUMP_FILENAME)
	check "$1: released in its usual time ($RELEASE_MS ms, limit $LIMIT_MS)" test "$RELEASE_MS" -le "$LIMIT_MS"
	check "$1: stored whole" has_line "$ENTRY" "CORESINK_RESULT=stored"
	check "$1: its file is there" test -n "$file" -a -f "$file"
	check "$1: the entry has its metadata" matches "$ENTRY" "^COREDUMP_CMDLINE=.*crasher"
	if [ "$(field "$ENTRY" COREDUMP_UID)" = 0 ]; then
		check "$1: a trace, made confined" \
			has_line "$ENTRY" "CORESINK_TRACE_SANDBOX=unprivileged,namespaces,read-only,seccomp"
	fi
}

write_config "$T/c.conf" "Directory=$T/cores" "StackTraceTimeoutSec=2" "RateLimitBurst=1000" \
	"RateLimitGlobalBurst=1000"
use_handler "$T/c.conf"

# The usual time: the slowest of three root crashes with nobody in the way. Attacked, a crash may take four
# times that and a second: a stall (the lock held, the handler waiting on a stopped child) would take a minute.
slowest=0
for _ in 1 2 3; do
	crash_as root 8
	[ "$RELEASE_MS" -gt "$slowest" ] && slowest=$RELEASE_MS
done
LIMIT_MS=$((4 * slowest + 1000))
crash_as evil 8
check "the attacker's own crash is stored, readable by it (the ACL)" \
	setpriv --reuid=$EVIL --regid=$EVIL --clear-groups test -r "$(field "$ENTRY" COREDUMP_FILENAME)"

# 1. Every file the attacker can open in the directory, and the directory itself, held with flock: exclusive on
# the directory (the lock every capture used to take), shared and exclusive on everything else it can open.
evil flock -x "$T/cores" sleep 600
for f in "$T"/cores/* "$T"/cores/.[!.]*; do
	evil flock -s "$f" sleep 600
	evil flock -x -n "$f" sleep 600
done
sleep 0.5
crash_as root 8
stored_whole "files held: root's crash"
crash_as evil 8
stored_whole "files held: the attacker's own crash"

# 2. Storms: SIGSTOP, then SIGKILL, every 10 ms at every process the attacker may signal but its crashing one (it
# only delays its own crash). Root's handler and the analysis of root's crash are none of them; the analysis of
# its own crash is, and is let go at its deadline (StackTraceTimeoutSec=2) without holding the handler.
for sig in STOP KILL; do
	evil bash -c "while :; do for p in \$(pgrep -u $EVIL); do case \$p:\$(cat /proc/\$p/comm 2>/dev/null) in
		\$\$:*|*:crasher|*:setpriv) ;; *) kill -$sig \$p 2>/dev/null ;; esac; done; sleep 0.01; done"
	sleep 0.3
	crash_as root 8
	stored_whole "SIG$sig storm: root's crash"
	crash_as evil 8
	stored_whole "SIG$sig storm: the attacker's own crash"
	check "SIG$sig storm: its analysis came to an end, a trace or a reason" \
		matches "$ENTRY" "^(CORESINK_TRACE_USEC|CORESINK_TRACE)="
	evil_stop
done

# 3. A reader holding its core, open and locked, cannot keep it from vacuum: at MaxUse, root's crashes remove it
# (the oldest), and are stored whole; its blocks are free although the attacker's fd is still open (a tmpfs of the
# test's own, to count them).
make_fs tmpfs "$T/vac" 64
write_config "$T/v.conf" "Directory=$T/vac" "MaxUse=20M" "KeepFree=0" "StackTrace=no" \
	"RateLimitBurst=1000" "RateLimitGlobalBurst=1000"
use_handler "$T/v.conf"
crash_as evil 8
held=$(field "$ENTRY" COREDUMP_FILENAME)
evil flock -s "$held" sleep 600
sleep 0.3
for i in 1 2; do
	crash_as root 8
	check "a reader holds its core: root's crash $i stored whole, not cut at MaxUse" \
		has_line "$ENTRY" "CORESINK_RESULT=stored"
done
check "the held core was vacuumed" test ! -e "$held"
used=$(stat -f -c '%b %f %S' "$T/vac" | awk '{ print ($1 - $2) * $3 }')
listed=$(du -sB1 "$T/vac" | cut -f1)
check "and its blocks are free: the file system holds what its files hold ($used B used, $listed B listed)" \
	test "$used" -le $((listed + (1 << 20)))
evil_stop

# 4. The socket server, with the directory and its files held: the server's handlers take the same lock.
if printf '@@/run/coresink-probe.sock\n' 2>/dev/null > /proc/sys/kernel/core_pattern; then
	write_config "$T/s.conf" "Directory=$T/cores" "Socket=$T/sock/kernel.socket" "StackTraceTimeoutSec=2" \
		"RateLimitBurst=1000" "RateLimitGlobalBurst=1000"
	start_server "$T/s.conf"
	use_socket "$T/s.conf"
	evil flock -x "$T/cores" sleep 600
	for f in "$T"/cores/* "$T"/cores/.[!.]*; do evil flock -s "$f" sleep 600; done
	sleep 0.3
	crash_as root 8
	stored_whole "socket mode, files held: root's crash"
	crash_as evil 8
	stored_whole "socket mode, files held: the attacker's own crash"
	evil_stop
	use_handler "$T/c.conf"
else
	echo "SKIP $NAME: socket mode: no coredump socket (@@) in $(uname -r)"
fi

# catch_analysis UID WHO: a crash of WHO (root, or evil) with 50 threads to unwind; its analysis, running as UID,
# caught and stopped. Sets VICTIM (the crash) and A (the analysis).
catch_analysis() {
	local watcher as=""
	[ "$2" = evil ] && as="setpriv --reuid=$EVIL --regid=$EVIL --clear-groups"
	"$STOPUID" "$1" coresink 15000 > "$T/analyst" &
	watcher=$!
	( ulimit -c unlimited; exec $as "$CRASHER" -T 50 8 ) 2>/dev/null &
	VICTIM=$!
	wait "$watcher" || fail "no analysis as uid $1 seen"
	A=$(cat "$T/analyst")
}

# 5. The analysis of a root crash, caught while it runs and read from /proc. (The shell's notices of the crashes it
# reaps are expected: its stderr is /dev/null from here.)
exec 2>/dev/null
write_config "$T/a.conf" "Directory=$T/cores" "StackTraceTimeoutSec=20" "RateLimitBurst=1000" \
	"RateLimitGlobalBurst=1000"
use_handler "$T/a.conf"
catch_analysis "$ANALYST" root
status=$(cat "/proc/$A/status")
check "analysis: runs as coresink-analysis, all four ids" \
	matches "$status" "^Uid:\s+$ANALYST\s+$ANALYST\s+$ANALYST\s+$ANALYST$"
check "analysis: no supplementary group" matches "$status" "^Groups:\s*$"
for set in CapInh CapPrm CapEff CapBnd CapAmb; do
	check "analysis: $set empty" matches "$status" "^$set:\s+0000000000000000$"
done
check "analysis: no new privileges" matches "$status" "^NoNewPrivs:\s+1$"
check "analysis: seccomp filter mode" matches "$status" "^Seccomp:\s+2$"
for ns in user mnt net ipc; do
	check "analysis: its own $ns namespace" test "$(readlink "/proc/$A/ns/$ns")" != "$(readlink "/proc/self/ns/$ns")"
done
mounts=$(cat "/proc/$A/mountinfo")
check "analysis: / read-only and noexec" matches "$mounts" "^[0-9]+ [0-9]+ [0-9:]+ / / ro,nosuid,nodev,noexec"
check "analysis: /proc/sys hidden under an empty tmpfs" matches "$mounts" " /proc/sys ro,.* - tmpfs "
check "analysis: not dumpable (its /proc is root's)" test "$(stat -c %u "/proc/$A/status")" = 0
# Made to crash (as a fault elfutils might have on a crafted core would), then let go: no dump of it.
kmsg_mark
kill -SEGV "$A"
kill -CONT "$A"
{ wait "$VICTIM"; sleep 0.1; } 2>/dev/null
e=$(journal_entry "$VICTIM") || fail "no entry for the crash whose analysis crashed"
check "the analysis's crash ends it: stopped by signal 11" has "$e" "CORESINK_TRACE=stopped by signal 11"
check "the core is stored all the same" has_line "$e" "CORESINK_RESULT=stored"
sleep 1
if journal_entry "$A" > /dev/null; then fail "the analysis's crash was dumped into coresink"; fi
ok "the analysis's crash is not dumped into coresink: no entry"
check "nor a core" bash -c "! ls '$T/cores' | grep -q '\\.$A\\.'"
check "nor a line in the kernel log" lacks "$(kmsg_since)" "[$A]"

# 6. The analysis of the attacker's own crash runs as the attacker, who still cannot reach into it: not dumpable,
# so no /proc of it (its environment, its fds: the core) and no ptrace (mem is opened as ptrace attaches).
catch_analysis "$EVIL" evil
for what in environ fd/3 mem; do
	check "its own crash's analysis: the attacker cannot open its /proc/PID/$what" \
		bash -c "! setpriv --reuid=$EVIL --regid=$EVIL --clear-groups cat /proc/$A/$what > /dev/null 2>&1"
done
kill -CONT "$A"
{ wait "$VICTIM"; sleep 0.1; } 2>/dev/null
e=$(journal_entry "$VICTIM") || fail "no entry for the attacker's crash"
check "its own crash's analysis: then it goes on, a trace in the entry" has "$e" "CORESINK_TRACE_USEC="
