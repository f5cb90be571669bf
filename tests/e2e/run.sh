#!/bin/bash
# Runs the end-to-end tests (tests/e2e/t-*.sh) of a tier and sums up. usage: run.sh [BUILDDIR [fast|all [TEST...]]]
#   fast (make check): the tests whose header says "# tier: fast", every feature once, in minutes;
#   all (make check-all): every test. A test without a tier line fails the run: nothing is dropped unseen.
#   TEST...: only these of the tier (t-signature.sh ...), with the same setup, for working on them.
# CORESINK_TIER tells the tests which tier runs them (t-package leaves piuparts to all).
# A test exits 0 (passed), 77 (skipped, with its reason) or anything else (failed). Each test's seconds are printed
# and kept in BUILDDIR/e2e-times-TIER.tsv, and the slowest ten are listed with the tier's total at the end.
# Where no journald runs (CI), the tests that read the journal start their own; those whose header says
# "# journald: both" then run a second time with a journald this runner started, as the system's would be on a
# systemd host: not theirs to stop or reconfigure.
cd "$(dirname "$0")" || exit 1
export B=${1:-build}
TIER=${2:-all}
shift 2 2>/dev/null
ONLY=" $* "
case $TIER in fast|all) ;; *) echo "usage: run.sh [BUILDDIR [fast|all [TEST...]]]" >&2; exit 100 ;; esac
export CORESINK_TIER=$TIER
case $B in /*) ;; *) B=$(cd ../.. && pwd)/$B ;; esac
TIMES=$B/e2e-times-$TIER.tsv
# The tests that failed, one a line: make check-all names them in its last line, which CI shows.
FAILED_LIST=$B/e2e-failed-$TIER
: > "$TIMES"
: > "$FAILED_LIST"
pass=0 failed=0 skipped=0 t_start=$(date +%s%N)

# What a test may change and must put back: checked after each one, so that a leak fails the test that caused it.
state() {
	cat /proc/sys/kernel/core_pattern /proc/sys/kernel/core_pipe_limit /proc/sys/fs/suid_dumpable
	grep -E ' /tmp/coresink-| /run/log/journal |^coresink-' /proc/mounts
	pidof systemd-journald
	ls -d /var/log/journal /run/log/journal /run/systemd/journal 2>/dev/null
}

# run TEST LABEL: runs one test, counts it, and notes its seconds.
run() {
	local before after rc t0 ms
	before=$(state)
	t0=$(date +%s%N)
	bash "$1"
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	printf '%s\t%s%s\n' "$ms" "$1" "$2" >> "$TIMES"
	printf 'time %s%s: %d.%01d s\n' "$1" "$2" $((ms / 1000)) $((ms % 1000 / 100))
	after=$(state)
	if [ "$before" != "$after" ]; then
		echo "FAIL $1$2: left global state changed:"
		diff <(echo "$before") <(echo "$after")
		rc=1
	fi
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ; echo "FAILED: $1$2"; echo "$1$2" >> "$FAILED_LIST" ;;
	esac
}

# tier_of TEST: fast or all, from its header.
tier_of() { sed -n '1,30s/^# tier: \(fast\|all\)\b.*/\1/p' "$1" | head -n 1; }

. ./lib.sh
# Root's crashes are analysed as coresink's analysis user, uploads run as its upload user, which 'make install'
# creates: made here for the tests, and removed after when they were not there before.
if [ "$(id -u)" -eq 0 ]; then
	for u in coresink-analysis coresink-upload coresink-debuginfod; do
		grep -q "^$u:" /etc/passwd && continue
		export CORESINK_TEST_USERS_MADE="${CORESINK_TEST_USERS_MADE:-} $u"
		at_exit "userdel $u 2>/dev/null; groupdel $u 2>/dev/null"
	done
	sh ../../scripts/add-user.sh ../../systemd/coresink.sysusers || exit 1
fi

# The journal every test runs on has lived (seed.sh): where no journald runs, the runtime journal's directory is kept
# from here to the end, so that each test's own journald opens the seeded files again.
if [ "$(id -u)" -eq 0 ]; then
	journald_running || journal_dir_keep
	bash ./seed.sh || { echo "FAIL: seed.sh could not make a journal that has lived"; exit 1; }
fi

# The tests that need a Debian root (debian_root) build it once, here; or find it in the cache make check-all made for
# its lanes (with the packages in it), where its static lane builds the roots ahead (roots.sh).
if [ -z "${CORESINK_ROOT_CACHE:-}" ]; then
	CORESINK_ROOT_CACHE=$(mktemp -d /var/tmp/coresink-roots.XXXXXX) || exit 1
	at_exit "rm -rf '$CORESINK_ROOT_CACHE'"
fi
export CORESINK_ROOT_CACHE

tests=""
for t in t-*.sh; do
	[ "$ONLY" = "  " ] || case $ONLY in *" $t "*) ;; *) continue ;; esac
	case $(tier_of "$t") in
	fast) tests="$tests $t" ;;
	all) [ "$TIER" = all ] && tests="$tests $t" ;;
	*) echo "FAIL $t: no '# tier: fast' or '# tier: all' line in its header"; failed=$((failed + 1)) ;;
	esac
done
for t in $tests; do
	run "$t" ""
done

# The second pass, with a journald that is not the tests' own.
if ! journald_running && [ "$(id -u)" -eq 0 ] && [ -x "$JOURNALD" ]; then
	start_journald
	echo "== again, with a journald the tests did not start (pid $JOURNALD_PID)"
	for t in $tests; do
		grep -q '^# journald: both' "$t" && run "$t" " (journald not the test's own)"
	done
	stop_journald
fi
echo "== the slowest ten of the $TIER tier (seconds)"
sort -rn "$TIMES" | head -n 10 | awk -F'\t' '{ printf "%7.1f  %s\n", $1 / 1000, $2 }'
echo "e2e ($TIER): $pass passed, $failed failed, $skipped skipped, in $(( ($(date +%s%N) - t_start) / 1000000000 )) s"
[ "$failed" -eq 0 ]
