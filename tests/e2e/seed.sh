#!/bin/bash
# seed.sh: a journal that has lived, made by run.sh before any test runs, in whatever journal the run uses (the
# system's where a journald runs; else the one run.sh keeps for every test's journald): real crashes of another
# program and of the tests' own crasher, from another directory (their cores gone since, as vacuumed ones are), a
# user's own crash with root's seal, and an entry forged by user nobody. A test that assumes an empty journal, or
# its own entries only, fails on it in CI as it would on a machine that has seen crashes; each test finds its own
# entries by what is unique to its crashes (lib.sh: TEST_SINCE, since_pid, the entry's id).
# Not a test: run.sh runs it and fails the run when it cannot seed.
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and crashes processes"
scratch
chmod 0755 "$T"
start_journald
write_config "$T/seed.conf" "Directory=$T/cores" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/seed.conf"
cp "$CRASHER" "$T/seedprog" || fail "copying the crasher"
pids=()
for _ in 1 2 3; do crash_run "$T/seedprog" -c seedprog 1; pids+=("$CRASH_PID"); done
crash_run "$CRASHER" 1
pids+=("$CRASH_PID")
crash_run setpriv --reuid=4300 --regid=4300 --clear-groups "$CRASHER" -c seeduser 1
pids+=("$CRASH_PID")
forge_sshd_entry || fail "the forged entry (logger --journald as nobody)"
for p in "${pids[@]}"; do journal_entry "$p" > /dev/null || fail "no entry of seeded crash $p"; done
n=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" | grep -c '^Process ')
ok "the journal has lived: $n crash entries written now (${#pids[@]} crashes, one a user's, one forged), $(journalctl --no-pager -o cat "MESSAGE_ID=$MESSAGE_ID" | grep -c '^Process ') in all"
# The tests' own time begins after this (their TEST_SINCE is their start less a second).
sleep 1.1
