#!/bin/bash
# Crash storms in pipe mode: no crash without a record. First the kernel's drops: over a kernel.core_pipe_limit of
# 2, eight crashes at the same moment; those the kernel dropped (no core, no handler, a line in its log) are named,
# pid and comm, in one entry of coresink's, written by the next capture; with the crashes that have entries of their
# own they make all eight, none twice. Then 1000 real crashes in 10 s, in bursts of 100 at the same moment, under the
# default config and the kernel.core_pipe_limit that 'make enable' sets: every one has its entry.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern"
scratch
start_journald
# The shell's notices of the crashes it reaps are expected, hundreds of them: its stderr is /dev/null.
exec 2>/dev/null

# 1. Over a limit of 2, 8 crashes at once (storm N WHAT). The kernel names at most 10 drops in 5 s in its log:
# each storm comes 5 s after anything else, and stays under that.
over_limit() {
	sleep 5.5
	since=$(date '+%Y-%m-%d %H:%M:%S')
	storm_ready "$1" 8 1
	storm_go "$1"
	{ wait $(cat "$T/pids.$1"); } 2>/dev/null
	storm_settle "$T/a.conf"
	storm_count "$T/pids.$1" "$since"
	echo "     over a limit of 2, $2: 8 crashes at once: $RECORDED with an entry, $REPORTED in the report of drops"
	check "$2: the kernel dropped some of 8 crashes at once" test "$RECORDED" -lt 8
	check "$2: every crash has its entry or is named in the report of drops: $RECORDED + $REPORTED = 8, none twice" \
		test "$((RECORDED + REPORTED))" -eq 8 -a "$BOTH" -eq 0
	e=$(journalctl --no-pager --since "$since" -o export "MESSAGE_ID=$DROPPED_ID" | tr -d '\0')
	# Drops the kernel logs after a capture read its log are the next capture's to report: on a loaded machine the
	# crashes of one storm reach the kernel's limit over some time, and a second report names those (run 60 in CI:
	# 3 + 5, two reports). None is named twice (above); together they count and name every drop.
	reports=$(printf '%s\n' "$e" | grep -c '^MESSAGE_ID=')
	counted=$(printf '%s\n' "$e" | sed -n 's/^CORESINK_KERNEL_DROPPED=//p' | awk '{ n += $1 } END { print n + 0 }')
	check "$2: the drops reported, in $reports report(s)" test "$reports" -ge 1
	check "$2: they count them ($counted)" test "$counted" -eq "$REPORTED"
	check "$2: and name each by pid and comm" test "$(printf '%s\n' "$e" | grep '^CORESINK_KERNEL_DROPPED_PROCESSES=' |
		grep -o '[0-9]* (crasher)' | wc -l)" -eq "$REPORTED"
	check "$2: with the limit in force" has_line "$e" "CORESINK_PIPE_LIMIT=2"
	# The metrics (MetricsFile=, docs/metrics.md) count the same: every crash with an entry (the storm's, and the one
	# storm_settle adds), every drop reported.
	SUM_RECORDED=$(( ${SUM_RECORDED:-0} + RECORDED + 1 )) SUM_REPORTED=$(( ${SUM_REPORTED:-0} + REPORTED ))
	for _ in $(seq 50); do
		m=$("$B/coresinkctl" --config "$T/a.conf" metrics)
		crashes=$(awk '/^coresink_crashes_total\{/ { n += $2 } END { print n + 0 }' <<< "$m")
		dropped=$(awk '$1 == "coresink_kernel_dropped_total" { print $2 }' <<< "$m")
		[ "$crashes" = "$SUM_RECORDED" ] && [ "$dropped" = "$SUM_REPORTED" ] && break
		sleep 0.1
	done
	check "$2: the metrics count them too: $crashes crashes of $SUM_RECORDED, $dropped dropped of $SUM_REPORTED" \
		test "$crashes" = "$SUM_RECORDED" -a "$dropped" = "$SUM_REPORTED"
}
write_config "$T/a.conf" "Directory=$T/a" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "StackTrace=no"
use_handler "$T/a.conf"
echo 2 > /proc/sys/kernel/core_pipe_limit
# A directory with no ledger yet: the storm makes it, and its drops are reported all the same.
over_limit 1 "the storm makes the ledger"
# A ledger that has read the log since: the next storm's drops, not the first's again.
over_limit 0 "the ledger read the log before"

# 2. 1000 crashes in 10 s, bursts of 100 at once, the default config, make enable's limit.
limit=$(sed -n 's/^kernel.core_pipe_limit=//p' "$B/60-coresink.conf")
write_config "$T/b.conf" "Directory=$T/b" "Compress=yes"
use_handler "$T/b.conf"
echo "$limit" > /proc/sys/kernel/core_pipe_limit
since=$(date '+%Y-%m-%d %H:%M:%S')
t0=$(date +%s%N)
storm_ready 2 100 4
for k in $(seq 10); do
	[ "$k" -lt 10 ] && storm_ready $((k + 2)) 100 4
	while [ "$(date +%s%N)" -lt $((t0 + k * 1000000000)) ]; do sleep 0.01; done
	storm_go $((k + 1))
done
cat "$T"/pids.{2..11} > "$T/storm"
{ wait $(cat "$T/storm"); } 2>/dev/null
t1=$(date +%s%N)
storm_settle "$T/b.conf"
storm_count "$T/storm" "$since"
echo "     1000 crashes in $(( (t1 - t0) / 1000000 )) ms at kernel.core_pipe_limit=$limit: $RECORDED with an entry," \
	"$REPORTED in the report of drops"
check "1000 crashes in 10 s at make enable's kernel.core_pipe_limit=$limit: every one has its entry" \
	test "$RECORDED" -eq 1000
