#!/bin/bash
# The journal, for real: a private systemd-journald when none runs, else the one that does. The crash entry carries
# the COREDUMP_* fields coredumpctl reads; a config typo is its own warning entry and costs nothing; an early line
# says the crash is being processed. With journald unreachable (no socket, or a socket nobody answers on) the crash
# goes to the kernel log and the core is still stored: tested with the handler run in a private mount namespace,
# which works whatever journald runs outside, and, where the journald is the test's own, with a kernel-spawned
# handler after stopping it.
# tier: fast (make check, and make check-all)
# journald: both (run again with a journald the test did not start: what it checks depends on whose it is)
. "$(dirname "$0")/lib.sh"
need_root "it starts systemd-journald and sets kernel.core_pattern"
scratch
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "Strategy=splcie"
use_handler "$T/c.conf"
start_journald

# Six chunks: the disk's cache is emptied behind the writeback of the third on (write/flush.c).
crash 96
e=$(journal_entry "$CRASH_PID") || fail "no journal entry for pid $CRASH_PID"
core=$(only_file "$T/cores") || exit 1
for field in "COREDUMP_PID=$CRASH_PID" "COREDUMP_UID=0" "COREDUMP_GID=0" "COREDUMP_SIGNAL=11" \
	"COREDUMP_SIGNAL_NAME=SIGSEGV" "COREDUMP_COMM=crasher" "COREDUMP_EXE=$CRASHER" \
	"COREDUMP_FILENAME=$core" "COREDUMP_HOSTNAME=$(hostname)" "COREDUMP_RLIMIT=18446744073709551615" \
	"CORESINK_RESULT=stored" "CORESINK_SIZE=$(file_size "$core")" "CORESINK_STRATEGY=readwrite" \
	"SYSLOG_IDENTIFIER=coresink" "PRIORITY=2"; do
	check "entry has $field" has_line "$e" "$field"
done
check "entry has a COREDUMP_TIMESTAMP in microseconds" matches "$e" '^COREDUMP_TIMESTAMP=[0-9]{16}$'
check "entry is not marked truncated" lacks "$e" "COREDUMP_TRUNCATED="
check "entry says the disk's cache was emptied as the core came ($(field "$e" CORESINK_FLUSH))" \
	matches "$e" '^CORESINK_FLUSH=[1-5] during the copy, the final sync [0-9]+ us$'
check "the typo is a warning entry of its own" \
	has "$(jctl -o cat -p warning SYSLOG_IDENTIFIER=coresink)" "bad value 'splcie' for Strategy"
early=$(jctl -o export "CORESINK_PID=$CRASH_PID" | tr -d '\0')
check "an early line, before the capture: processing" has_line "$early" \
	"MESSAGE=Process $CRASH_PID (crasher) of user 0 terminated abnormally with signal 11/SIGSEGV, processing..."
check "which is not a second crash entry" lacks "$early" "MESSAGE_ID="
check "exactly one crash entry" \
	test "$(jctl -o json "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$CRASH_PID" | wc -l)" -eq 1

# journald unreachable, whatever runs outside: the handler in a private mount namespace, with no socket at all and
# with a socket nobody answers on.
cp "$core" "$T/in"
cat > "$T/ns.sh" <<EOS
. "$TOP/tests/e2e/lib.sh"
for socket in none dead; do
	rm -rf "$T/cores"
	if [ \$socket = dead ]; then
		mkdir -p /run/systemd/journal && "$DEADSOCK" /run/systemd/journal/socket || fail "deadsock"
	fi
	kmsg_mark
	"$CORESINK" --config "$T/c.conf" 4242 0 0 11 "\$(date +%s)" "$UNLIMITED" "\$(hostname)" nsprobe 1 "" < "$T/in"
	check "journal socket \$socket: the core is stored" cmp -s "\$(only_file "$T/cores")" "$T/in"
	log=\$(kmsg_since)
	check "journal socket \$socket: the early line went to the kernel log" \
		has "\$log" "Process 4242 (nsprobe) of user 0 terminated abnormally with signal 11/SIGSEGV, processing..."
	check "journal socket \$socket: and the crash entry, the stored file named" \
		has "\$log" "Process 4242 (nsprobe) of user 0 dumped core (SIGSEGV); \$(file_size "$T/in") bytes stored in $T/cores/core.nsprobe.4242."
done
EOS
in_private_ns "$T/ns.sh" || fail "the private namespace's checks"

# A kernel-spawned handler sees the real socket: only a journald of this test's own may be stopped for it.
if [ -z "${JOURNALD_PID:-}" ]; then
	echo "SKIP $NAME: kernel-spawned handler with journald gone: the journald here is not the test's to stop"
	exit 0
fi
stop_journald
check "journald's socket is left behind, unanswered" test -S /run/systemd/journal/socket
rm -rf "$T/cores"
kmsg_mark
crash 16
check "the core is stored without journald" test -n "$(only_file "$T/cores")"
check "the crash went to the kernel log" \
	has "$(kmsg_since)" "coresink["
check "with the stored file named" has "$(kmsg_since)" "Process $CRASH_PID (crasher) of user 0 dumped core (SIGSEGV); "
