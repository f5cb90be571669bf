#!/bin/bash
# Runs every end-to-end test (tests/e2e/t-*.sh) and sums up. usage: run.sh [BUILDDIR]
# A test exits 0 (passed), 77 (skipped, with its reason) or anything else (failed).
cd "$(dirname "$0")" || exit 1
export B=${1:-build}
pass=0 failed=0 skipped=0

# What a test may change and must put back: checked after each one, so that a leak fails the test that caused it.
state() {
	cat /proc/sys/kernel/core_pattern /proc/sys/kernel/core_pipe_limit /proc/sys/fs/suid_dumpable
	grep -E ' /tmp/coresink-| /run/log/journal |^coresink-' /proc/mounts
	pidof systemd-journald
}
for t in t-*.sh; do
	before=$(state)
	bash "$t"
	rc=$?
	after=$(state)
	if [ "$before" != "$after" ]; then
		echo "FAIL $t: left global state changed:"
		diff <(echo "$before") <(echo "$after")
		rc=1
	fi
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ; echo "FAILED: $t" ;;
	esac
done
echo "e2e: $pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
