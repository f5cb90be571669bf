#!/bin/bash
# The stack trace in the journal: a real multi-threaded crash gets systemd-coredump's "Stack trace of thread N"
# for every thread in its MESSAGE, with the crashing function, the module lines and COREDUMP_PACKAGE_* from the
# binary's ELF package note; coredumpctl info shows it. StackTrace=no and StackTraceMaxSize= leave it out, a
# deadline cuts it off; hostile cores (absurd counts, cut or scrambled notes) never cost the core or the entry.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v coredumpctl >/dev/null || skip "no coredumpctl (systemd-coredump)"
command -v jq >/dev/null || skip "no jq"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"

# crash_threads N MIB: a real crash of the crasher with N idle threads; sets CRASH_PID.
crash_threads() {
	crash_run "$CRASHER" -T "$1" "$2"
}

crash_threads 3 16
m=$(entry_message "$CRASH_PID") || fail "no entry"
e=$(journal_entry "$CRASH_PID")
printf '%s\n' "$m" | head -n 12
check "MESSAGE: the sentence first" matches "$(printf '%s\n' "$m" | head -n 1)" "^Process $CRASH_PID \(crasher\) of user 0 dumped core \(SIGSEGV\); [0-9]+ bytes stored in "
check "then a blank line" test -z "$(printf '%s\n' "$m" | sed -n 2p)"
check "a trace for each of the 4 threads" test "$(printf '%s\n' "$m" | grep -c '^Stack trace of thread [0-9]*:$')" -eq 4
check "the crashing thread first, in crash_here" \
	test "$(printf '%s\n' "$m" | grep -A1 '^Stack trace' | sed -n 1,2p | tr '\n' '|')" = \
	"Stack trace of thread $CRASH_PID:|$(printf '%s\n' "$m" | grep -m1 '^#0 ')|"
check "#0 is crash_here, in the crasher" matches "$m" "^#0  0x[0-9a-f]{16} crash_here \(crasher \+ 0x[0-9a-f]+\)$"
check "main called it" matches "$m" "^#1  0x[0-9a-f]{16} main \(crasher \+ 0x[0-9a-f]+\)$"
check "the idle threads wait in pause" test "$(printf '%s\n' "$m" | grep -c ' idle (crasher + 0x')" -eq 3
check "the module line names the package" has_line "$m" "Module crasher from deb coresink-crasher-1.0-1.amd64"
check "libc's module line has its build-id" matches "$m" "^Module libc\.so\.6 with build-id [0-9a-f]{40}$"
check "COREDUMP_PACKAGE_NAME from the ELF package note" has_line "$e" "COREDUMP_PACKAGE_NAME=coresink-crasher"
check "COREDUMP_PACKAGE_VERSION" has_line "$e" "COREDUMP_PACKAGE_VERSION=1.0-1"
json=$(field "$e" COREDUMP_PACKAGE_JSON)
check "COREDUMP_PACKAGE_JSON is JSON with the build-id: $json" \
	test "$(printf '%s' "$json" | jq -r '.crasher.name + " " + (.crasher.buildId | length | tostring)')" = "coresink-crasher 40"
check "CORESINK_TRACE_USEC says what it took ($(field "$e" CORESINK_TRACE_USEC) us)" matches "$e" '^CORESINK_TRACE_USEC=[0-9]+$'
check "no CORESINK_TRACE: nothing went wrong" lacks "$e" "CORESINK_TRACE="
info=$(cdctl info "$CRASH_PID" 2>&1)
check "coredumpctl info shows the trace" has "$info" "Stack trace of thread $CRASH_PID:"
core=$(field "$e" COREDUMP_FILENAME)
check "the core is stored and complete" "$PATCHECK" "$core" 16 >/dev/null

write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "StackTrace=no"
crash_threads 1 4
m=$(entry_message "$CRASH_PID")
check "StackTrace=no: no trace" lacks "$m" "Stack trace"
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"StackTraceMaxSize=1M"
crash_threads 1 4
e=$(journal_entry "$CRASH_PID")
check "StackTraceMaxSize=1M: not made, and said why" has_line "$e" \
	"CORESINK_TRACE=not made: the core is larger than StackTraceMaxSize"
check "and no trace" lacks "$(entry_message "$CRASH_PID")" "Stack trace"

# A deadline: 50 threads to unwind in 10 ms. The analysis is killed, the entry says so, the core is whole.
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"StackTraceTimeoutSec=10ms"
crash_threads 50 16
e=$(journal_entry "$CRASH_PID") || fail "no entry after the deadline"
check "the deadline stops the analysis: $(field "$e" CORESINK_TRACE)" has_line "$e" \
	"CORESINK_TRACE=stopped after 10 ms (the deadline)"
check "after about that long ($(field "$e" CORESINK_TRACE_USEC) us)" test "$(field "$e" CORESINK_TRACE_USEC)" -lt 2000000
check "the core is stored all the same" "$PATCHECK" "$(field "$e" COREDUMP_FILENAME)" 16 >/dev/null

# Hostile cores, handed to the handler directly: stored whole, one entry each, a trace or a reason.
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
for mode in phnum notes descsz cut noise; do
	"$B/corecraft" "$mode" "$core" > "$T/bad" || fail "corecraft $mode"
	gone=$(sh -c 'echo $$')
	"$CORESINK" --config "$T/c.conf" "$gone" 0 0 11 "$(date +%s)" "$UNLIMITED" "$(hostname)" crafted 1 "" < "$T/bad"
	check "crafted core ($mode): the handler exits 0" test $? -eq 0
	e=$(journal_entry "$gone") || fail "crafted core ($mode): no entry"
	check "crafted core ($mode): stored whole" test "$(file_size "$(field "$e" COREDUMP_FILENAME)")" -eq "$(file_size "$T/bad")"
	m=$(entry_message "$gone")
	has "$m" "Stack trace of thread" && how="a trace" || how="$(field "$e" CORESINK_TRACE)"
	check "crafted core ($mode): an entry with a trace or a reason: $how" test -n "$how"
done
