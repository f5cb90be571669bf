#!/bin/bash
# Entries coresink did not write. Any local user can send an entry with coresink's MESSAGE_ID and any COREDUMP_* or
# CORESINK_* field: as user nobody, one that names sshd's crash and /etc/passwd as its core (logger --journald), and
# coresink's own binary run in a user namespace of nobody's, whose entry then has coresink's _COMM and _EXE. Beside a
# real crash, coresink --summary counts the real one only, and says how many it skipped.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v logger > /dev/null || skip "no logger (bsdutils)"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"

crash 4
check "a real crash, with its entry" test -n "$(journal_entry "$CRASH_PID")"
real=$(field "$(journal_entry "$CRASH_PID")" CORESINK_SIGNATURE)

# As nobody: a forged entry, word for word what a root crash of sshd's would say.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
forge_sshd_entry || fail "logger --journald as nobody"
# coresink itself, run by nobody in a user namespace of its own, "root" there: it writes an entry as it would for a
# crash, with coresink's _COMM and _EXE, about a crash that never was.
if as_nobody unshare -Ur true 2> /dev/null; then
	as_nobody unshare -Ur "$CORESINK" --config "$T/c.conf" 1 65534 65534 11 "$(date +%s)" 0 host sshd 1 < /dev/null \
		> /dev/null 2>&1
	userns=1
else
	ok "no unprivileged user namespaces here: that forgery cannot be tried"
	userns=0
fi
sleep 1
sent=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" | grep -c '^Process ')
check "the journal holds the forged entries beside the real one ($sent entries)" test "$sent" -ge $((2 + userns))

# On a journal that has lived (run.sh's seed.sh, the crashes of the test before, a second ago): what this test
# wrote, since its crash.
out=$("$CORESINK" --summary --json --since "$CRASH_SINCE") || fail "coresink --summary --json"
check "summary: the real crash counted once: $(jq -c "[.signatures[] | select(.signature == \"$real\") | .crashes]" <<< "$out")" \
	test "$(jq "[.signatures[] | select(.signature == \"$real\") | .crashes] | add" <<< "$out")" = 1
check "summary: sshd's forged crash is not counted" fails has "$out" deadbeefdeadbeef
check "summary: no crash of sshd's: $(jq -c '[.signatures[].executable]' <<< "$out")" \
	test -z "$(jq -r '.signatures[] | select(.executable == "/usr/sbin/sshd") | .signature' <<< "$out")"
check "summary: it says how many it skipped: $(jq .skipped_not_coresinks <<< "$out")" \
	test "$(jq .skipped_not_coresinks <<< "$out")" -ge $((1 + userns))
check "summary's table says so too" has "$("$CORESINK" --summary --since "$CRASH_SINCE")" "skipped: coresink did not write them"
