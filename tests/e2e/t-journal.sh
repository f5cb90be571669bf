#!/bin/bash
# The journal, for real: a private systemd-journald when none runs. The crash entry carries the COREDUMP_* fields
# coredumpctl reads; a config typo is its own warning entry and costs nothing. With journald gone (its socket left
# behind, nobody listening) the crash goes to the kernel log and the core is still stored.
. "$(dirname "$0")/lib.sh"
need_root "it starts systemd-journald and sets kernel.core_pattern"
scratch
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "Strategy=splcie"
use_handler "$T/c.conf"
start_journald

crash 16
e=$(journal_entry "$CRASH_PID") || fail "no journal entry for pid $CRASH_PID"
core=$(only_file "$T/cores") || exit 1
for field in "COREDUMP_PID=$CRASH_PID" "COREDUMP_UID=0" "COREDUMP_GID=0" "COREDUMP_SIGNAL=11" \
	"COREDUMP_SIGNAL_NAME=SIGSEGV" "COREDUMP_COMM=crasher" "COREDUMP_EXE=$CRASHER" \
	"COREDUMP_FILENAME=$core" "COREDUMP_HOSTNAME=$(hostname)" "COREDUMP_RLIMIT=18446744073709551615" \
	"CORESINK_RESULT=stored" "CORESINK_SIZE=$(file_size "$core")" "CORESINK_STRATEGY=splice" \
	"SYSLOG_IDENTIFIER=coresink" "PRIORITY=2"; do
	check "entry has $field" has_line "$e" "$field"
done
check "entry has a COREDUMP_TIMESTAMP in microseconds" matches "$e" '^COREDUMP_TIMESTAMP=[0-9]{16}$'
check "entry is not marked truncated" lacks "$e" "COREDUMP_TRUNCATED="
check "the typo is a warning entry of its own" \
	has "$(journalctl --no-pager -o cat -p warning SYSLOG_IDENTIFIER=coresink)" "bad value 'splcie' for Strategy"

# journald gone, socket left: the kernel log takes the entry; the core is stored all the same.
[ -n "${JOURNALD_PID:-}" ] || skip "a system journald runs here; not stopping it"
stop_journald
check "journald's socket is left behind, unanswered" test -S /run/systemd/journal/socket
rm -rf "$T/cores"
kmsg_mark
crash 16
check "the core is stored without journald" test -n "$(only_file "$T/cores")"
check "the crash went to the kernel log" \
	has "$(kmsg_since)" "coresink["
check "with the stored file named" has "$(kmsg_since)" "Process $CRASH_PID (crasher) of user 0 dumped core (SIGSEGV); "
