#!/bin/bash
# A pipe-mode handler killed (SIGKILL: the OOM killer, an admin's kill -9) in the middle of a capture, and one killed
# after its core was stored but before its entry: the crash is not left with only its "processing..." line. The
# next handler finds the dead one's record in the ledger and writes the crash's one entry: failed, with no file
# left, or stored, naming the core, whole. Exactly one entry, however many handlers come after.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"

# kill_handler_of PID FIELD: waits until the ledger holds the handler of crash PID with FIELD (the record's 12th
# word: whether its core was stored) at 1, or just its record (FIELD empty); kills that handler, by its own pid.
# Polled by bash alone (lib.sh's await_handler), so that a loaded machine does not let the capture end between polls.
kill_handler_of() {
	await_handler "$T/cores" "$1" "$2"
	[ -n "$HANDLER" ] || fail "the ledger never showed the handler of crash $1"
	kill -KILL "$HANDLER"
}


# 1. Killed while it copies a 768 MiB core.
{ ( ulimit -c unlimited; exec "$CRASHER" 768 ) & cp=$!; } 2>/dev/null
kill_handler_of "$cp" ""
wait "$cp" 2>/dev/null
check "killed mid-capture: no file left in the directory" test -z "$(entries "$T/cores")"
check "and no entry yet, but its processing... line" \
	test "$(entries_of "$cp")" -eq 0 -a -n "$(jctl -o cat "CORESINK_PID=$cp" | grep 'processing\.\.\.')"
crash 1
e=$(entry_where "COREDUMP_PID=$cp") || fail "the next handler did not name the crash whose handler was killed"
check "the next handler names it: $(field "$e" MESSAGE)" all_of "$e" "CORESINK_RESULT=failed" "COREDUMP_SIGNAL=11" \
	"COREDUMP_COMM=crasher"
check "and says why: $(field "$e" CORESINK_ERROR)" matches "$(field "$e" CORESINK_ERROR)" \
	"^the capture \(its handler, pid [0-9]+, died before the entry\): "
crash 1
check "one entry for it, however many handlers come after" test "$(entries_of "$cp")" -eq 1

# 2. Killed after its core was stored, while it makes the stack trace (of 60 threads: 80-100 ms, long enough to be
# caught), which runs as coresink-analysis (tests/e2e/run.sh makes the user).
id coresink-analysis > /dev/null 2>&1 || skip "no user coresink-analysis: run through tests/e2e/run.sh"
{ ( ulimit -c unlimited; exec "$CRASHER" -T 60 64 ) & cp=$!; } 2>/dev/null
kill_handler_of "$cp" 1
wait "$cp" 2>/dev/null
crash 1
e=$(entry_where "COREDUMP_PID=$cp") || fail "the next handler did not name the stored crash whose handler was killed"
core=$(field "$e" COREDUMP_FILENAME)
check "killed after storing: named as stored, in $core" all_of "$e" "CORESINK_RESULT=stored" "COREDUMP_SIGNAL=11"
check "the core it names is there, whole" "$PATCHECK" "$core" 64
crash 1
check "one entry for it too" test "$(entries_of "$cp")" -eq 1
check "no temporary or stray file remains" test "$(entries "$T/cores" | grep -vc '^core\.crasher\.[0-9]*\.[0-9TZ]*$')" -eq 0
