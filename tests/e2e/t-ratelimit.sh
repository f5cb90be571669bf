#!/bin/bash
# The crash-rate limit with real crashes: a crash loop stores RateLimitBurst cores per interval, the rest are
# logged as suppressed, and the next stored core reports how many were not.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitIntervalSec=4" "RateLimitBurst=2"
use_handler "$T/c.conf"

results=()
t0=$(date +%s)
for i in 1 2 3 4 5; do
	crash 4
	e=$(journal_entry "$CRASH_PID") || fail "no journal entry for $CRASH_PID"
	results+=("$(printf '%s\n' "$e" | sed -n 's/^CORESINK_RESULT=//p')")
done
[ $(( $(date +%s) - t0 )) -lt 4 ] || skip "the machine is too slow to crash 5 times within the 4 s window"
check "a loop of 5 crashes: 2 stored, 3 suppressed (${results[*]})" test "${results[*]}" = "stored stored suppressed suppressed suppressed"
check "only 2 cores on disk" test "$(entries "$T/cores" | wc -l)" -eq 2
check "suppressed entries say why" has "$e" "not stored: executable crash-rate limit"
sleep 4
crash 4
e=$(journal_entry "$CRASH_PID") || fail "no journal entry"
check "after the interval, the next crash is stored" has_line "$e" "CORESINK_RESULT=stored"
check "and reports the 3 suppressed ones" has_line "$e" "CORESINK_SUPPRESSED=3"
check "in its message too" has "$e" "3 earlier crash(es) were not stored (rate limit)."
