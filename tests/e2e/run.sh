#!/bin/sh
# Runs every end-to-end test (tests/e2e/t-*.sh) and sums up. usage: run.sh [BUILDDIR]
# A test exits 0 (passed), 77 (skipped, with its reason) or anything else (failed).
cd "$(dirname "$0")" || exit 1
export B=${1:-build}
pass=0 failed=0 skipped=0
for t in t-*.sh; do
	bash "$t"
	case $? in
	0) pass=$((pass + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ; echo "FAILED: $t" ;;
	esac
done
echo "e2e: $pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
