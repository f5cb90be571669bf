#!/bin/bash
# Runs every end-to-end test (tests/e2e/t-*.sh) and sums up. usage: run.sh [BUILDDIR]
# A test exits 0 (passed), 77 (skipped, with its reason) or anything else (failed).
# Where no journald runs (CI), the tests that read the journal start their own; they then run a second time with a
# journald this runner started, as the system's would be on a systemd host: not theirs to stop or reconfigure.
cd "$(dirname "$0")" || exit 1
export B=${1:-build}
pass=0 failed=0 skipped=0

# What a test may change and must put back: checked after each one, so that a leak fails the test that caused it.
state() {
	cat /proc/sys/kernel/core_pattern /proc/sys/kernel/core_pipe_limit /proc/sys/fs/suid_dumpable
	grep -E ' /tmp/coresink-| /run/log/journal |^coresink-' /proc/mounts
	pidof systemd-journald
	ls -d /var/log/journal /run/log/journal /run/systemd/journal 2>/dev/null
}

# run TEST LABEL: runs one test and counts it.
run() {
	local before after rc
	before=$(state)
	bash "$1"
	rc=$?
	after=$(state)
	if [ "$before" != "$after" ]; then
		echo "FAIL $1$2: left global state changed:"
		diff <(echo "$before") <(echo "$after")
		rc=1
	fi
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ; echo "FAILED: $1$2" ;;
	esac
}

. ./lib.sh
# Root's crashes are analysed as coresink's analysis user, uploads run as its upload user, which 'make install'
# creates: made here for the tests, and removed after when they were not there before.
if [ "$(id -u)" -eq 0 ]; then
	for u in coresink-analysis coresink-upload; do
		grep -q "^$u:" /etc/passwd && continue
		export CORESINK_TEST_USERS_MADE="${CORESINK_TEST_USERS_MADE:-} $u"
		at_exit "userdel $u 2>/dev/null; groupdel $u 2>/dev/null"
	done
	sh ../../scripts/add-user.sh ../../systemd/coresink.sysusers || exit 1
fi

# The tests that need a Debian root (debian_root) build it once, here.
CORESINK_ROOT_CACHE=$(mktemp -d /var/tmp/coresink-roots.XXXXXX) || exit 1
export CORESINK_ROOT_CACHE
at_exit "rm -rf '$CORESINK_ROOT_CACHE'"

for t in t-*.sh; do
	run "$t" ""
done

# The second pass, with a journald that is not the tests' own.
if ! journald_running && [ "$(id -u)" -eq 0 ] && [ -x "$JOURNALD" ]; then
	start_journald
	echo "== again, with a journald the tests did not start (pid $JOURNALD_PID)"
	for t in $(grep -lE '^start_journald|crash_log' t-*.sh); do
		run "$t" " (journald not the test's own)"
	done
	stop_journald
fi
echo "e2e: $pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
