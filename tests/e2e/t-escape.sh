#!/bin/bash
# Entries that never break the admin's tools: real crashes whose comm is invalid UTF-8, holds a newline or control
# bytes, or looks like a field; with /proc metadata (the kernel waits for the handler) and without (the process is
# gone, as with core_pipe_limit 0). coredumpctl list, info and list --json=short succeed on every entry and show the
# escaped name; journalctl -o json is valid JSON. And systemd's newer fields: COREDUMP_TID, COREDUMP_DUMPABLE,
# COREDUMP_CODE (the si_code from the core's own NT_SIGINFO note).
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v coredumpctl >/dev/null || skip "no coredumpctl (systemd-coredump)"
command -v jq >/dev/null || skip "no jq"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"

# A plain crash first: the new fields.
crash 4
e=$(journal_entry "$CRASH_PID") || fail "no entry"
check "COREDUMP_TID: the crashing thread" has_line "$e" "COREDUMP_TID=$CRASH_PID"
check "COREDUMP_DUMPABLE=1 (dumpable by its owner)" has_line "$e" "COREDUMP_DUMPABLE=1"
check "COREDUMP_CODE=1: SEGV_MAPERR, read from the core's NT_SIGINFO" has_line "$e" "COREDUMP_CODE=1"
core=$(field "$e" COREDUMP_FILENAME)
{ ( ulimit -c unlimited; exec sleep 100 ) & victim=$!; sleep 0.2; kill -SEGV "$victim"; wait "$victim"; } 2>/dev/null
e=$(journal_entry "$victim") || fail "no entry for a kill -SEGV"
check "kill -SEGV: COREDUMP_CODE=0 (SI_USER)" has_line "$e" "COREDUMP_CODE=0"

# Hostile names, through the kernel, with /proc metadata.
names=($'../\xff\n--x' $'a\nb' $'\x01\x1b[31m\x7f' 'X=1' $'\xc2\x85\xed\xa0\x80' $'back\\xff')
# The kernel itself turns '/' in %e into '!'.
escaped=('..!\xff\n--x' 'a\nb' '\x01\x1b[31m\x7f' 'X=1' '\xc2\x85\xed\xa0\x80' 'back\\xff')
pids=()
for i in "${!names[@]}"; do
	{ ( ulimit -c unlimited; exec "$CRASHER" -c "${names[$i]}" 4 ) & p=$!; wait $p; } 2>/dev/null
	pids+=("$p")
	e=$(journal_entry "$p") || fail "no entry for comm $(printf '%q' "${names[$i]}")"
	check "comm $(printf '%q' "${names[$i]}"): COREDUMP_COMM=${escaped[$i]}" has_line "$e" "COREDUMP_COMM=${escaped[$i]}"
	check "and the MESSAGE names it so" has "$(entry_message "$p")" "Process $p (${escaped[$i]}) of user 0 dumped core"
done
# Without /proc metadata: the process is gone, nothing but the kernel's arguments describe it (no COREDUMP_EXE).
# Its lookups start from the moment before it: a journal that has lived may hold an older crash of the same pid.
gone_since="@$(date +%s.%N)"
gone=$(sh -c 'echo $$')
"$CORESINK" --config "$T/c.conf" "$gone" 0 0 11 "$(date +%s)" "$UNLIMITED" "$(hostname)" "${names[0]}" 1 "" \
	"$gone" < "$core"
e=$(journal_entry "$gone") || fail "no entry for the vanished process"
check "vanished process: no metadata, no COREDUMP_EXE" test -z "$(field "$e" COREDUMP_EXE)"
check "vanished process: COREDUMP_COMM escaped" has_line "$e" 'COREDUMP_COMM=../\xff\n--x'
pids+=("$gone")

for p in "${pids[@]}"; do
	jctl -o export "COREDUMP_PID=$p" | tr -d '\0' | grep -q $'\xff' &&
		fail "pid $p: a raw invalid byte reached the journal"
done
ok "no raw invalid byte in any entry"
list=$(coredumpctl --no-pager --since "$gone_since" list 2>&1); rc=$?
check "coredumpctl list succeeds (exit $rc)" test "$rc" -eq 0
check "and shows the escaped name" has "$list" '../\xff\n--x'
json=$(coredumpctl --no-pager --since "$gone_since" list --json=short 2>&1); rc=$?
check "coredumpctl list --json=short succeeds (exit $rc)" test "$rc" -eq 0
check "and is JSON holding the escaped name" \
	test "$(printf '%s' "$json" | jq -r --arg p "$gone" '.[] | select(.pid == ($p | tonumber)) | .exe')" = '../\xff\n--x'
info=$(coredumpctl --no-pager --since "$gone_since" info "$gone" 2>&1); rc=$?
check "coredumpctl info succeeds (exit $rc)" test "$rc" -eq 0
check "and shows the escaped name" has "$info" "PID: $gone (../\\xff\\n--x)"
for p in "${pids[@]}"; do
	jctl -o json "COREDUMP_PID=$p" | jq -e 'select(.COREDUMP_COMM | type == "string")' \
		>/dev/null || fail "pid $p: journalctl -o json: COREDUMP_COMM is not a JSON string"
done
ok "journalctl -o json: every COREDUMP_COMM is a plain JSON string"
