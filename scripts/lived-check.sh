#!/bin/bash
# lived-check.sh: make check on a machine that has lived, where pids are certain to have been reused. A system
# journald with persistent storage (/var/log/journal); kernel.pid_max lowered to PID_MAX (8192 by default), so that
# the pid space wraps many times in one run; CRASHES real crashes (3000 by default) handled by coresink first, each
# with its entry, so that the journal holds an older crash of nearly every pid a test's crash will get; then make
# check, the end-to-end suite again, and once more after that journald is restarted. Its logs are
# /tmp/lived.N.log. Everything it changed is put back (pid_max, core_pattern, core_pipe_limit) and everything it made
# removed (the journald it started, by its pid, and the journal files and directories it created), on failure too.
# Developer check, as root, on a machine where no journald runs; README and docs/design.md name it.
# usage: scripts/lived-check.sh [PID_MAX [CRASHES]]
set -u
PID_MAX=${1:-8192}
CRASHES=${2:-3000}
[ "$(id -u)" -eq 0 ] || { echo "lived-check: needs root" >&2; exit 100; }
if pidof systemd-journald > /dev/null; then
	echo "lived-check: a journald runs already: this check starts its own" >&2
	exit 100
fi
cd "$(dirname "$0")/.." || exit 111
TOP=$PWD
make all build/crasher > /dev/null || exit 111

made_var=""; [ -d /var/log/journal ] || { mkdir -p /var/log/journal; made_var=1; }
machine=/var/log/journal/$(cat /etc/machine-id)
made_machine=""; [ -d "$machine" ] || made_machine=1
made_run=""; [ -d /run/log/journal ] || made_run=1
made_sock=""; [ -d /run/systemd/journal ] || made_sock=1
pid_max_before=$(cat /proc/sys/kernel/pid_max)
pattern_before=$(cat /proc/sys/kernel/core_pattern)
limit_before=$(cat /proc/sys/kernel/core_pipe_limit)
work=$(mktemp -d /var/tmp/lived.XXXXXX)
J=""

start() {
	/lib/systemd/systemd-journald > /dev/null 2>&1 &
	J=$!
	for _ in $(seq 50); do [ -S /run/systemd/journal/socket ] && break; sleep 0.1; done
	journalctl --flush > /dev/null 2>&1
}
stop() { [ -n "$J" ] && { kill "$J"; wait "$J" 2>/dev/null; J=""; }; }
# The kernel's crash handler as it was.
handler_back() {
	echo "$pattern_before" > /proc/sys/kernel/core_pattern
	echo "$limit_before" > /proc/sys/kernel/core_pipe_limit
}
undo() {
	handler_back
	echo "$pid_max_before" > /proc/sys/kernel/pid_max
	stop
	rm -rf "$work"
	[ -n "$made_machine" ] && rm -rf "$machine"
	[ -n "$made_var" ] && rm -rf /var/log/journal
	[ -n "$made_run" ] && rm -rf /run/log/journal
	[ -n "$made_sock" ] && rm -rf /run/systemd/journal
}
trap undo EXIT
# crash_pids [SINCE]: COREDUMP_PID of every crash entry in the journal (since SINCE), one a line.
crash_pids() {
	journalctl --no-pager ${1:+--since "$1"} -o export MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1 | tr -d '\0' |
		sed -n 's/^COREDUMP_PID=//p'
}
trap 'exit 130' INT TERM HUP

start
echo "$PID_MAX" > /proc/sys/kernel/pid_max || exit 111

# The crashes before: entries only (Storage=none, no trace), no rate limit, so that each leaves its entry and
# costs a few milliseconds; one at a time, as a crash loop would.
printf '[Coresink]\nDirectory=%s/cores\nStorage=none\nStackTrace=no\nRateLimitBurst=0\nRateLimitGlobalBurst=0\n' \
	"$work" > "$work/c.conf"
build/coresink --config "$work/c.conf" --handler "$TOP/build/coresink" --core-pattern > /proc/sys/kernel/core_pattern ||
	exit 111
echo 16 > /proc/sys/kernel/core_pipe_limit
since=$(date +%s)
# The shell's "Segmentation fault (core dumped)" notice, one a crash, is kept out of the output.
for _ in $(seq "$CRASHES"); do
	{ ( ulimit -c unlimited; exec build/crasher 1 ) > /dev/null 2>&1; } 2>/dev/null
done
handler_back
sleep 1
pids=$(crash_pids "@$since")
echo "before: $(printf '%s\n' "$pids" | grep -c .) crash entries of $(printf '%s\n' "$pids" | sort -u | grep -c .)" \
	"distinct pids, kernel.pid_max=$PID_MAX (was $pid_max_before)"

status=0
make check > /tmp/lived.1.log 2>&1; rc=$?
echo "run 1, make check (journald $J, persistent): rc=$rc $(grep '^e2e' /tmp/lived.1.log)"
[ "$rc" -eq 0 ] || status=1
bash tests/e2e/run.sh build > /tmp/lived.2.log 2>&1; rc=$?
echo "run 2, e2e again: rc=$rc $(grep '^e2e' /tmp/lived.2.log)"
[ "$rc" -eq 0 ] || status=1
stop; start
bash tests/e2e/run.sh build > /tmp/lived.3.log 2>&1; rc=$?
echo "run 3, e2e, journald restarted ($J): rc=$rc $(grep '^e2e' /tmp/lived.3.log)"
[ "$rc" -eq 0 ] || status=1
echo "pids reused: $(crash_pids | sort | uniq -d | wc -l) pids have more than one crash in the journal"
exit "$status"
