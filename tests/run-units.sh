#!/bin/sh
# Runs the Check suites: usage: run-units.sh [--valgrind] BUILDDIR UNIT...
# Under valgrind, CK_FORK=no keeps every test in the process valgrind watches.
set -u
vg=""
if [ "$1" = "--valgrind" ]; then
	shift
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --trace-children=no"
	export CK_FORK=no
fi
b=$1
shift
fail=0
for u in "$@"; do
	echo "== $u${vg:+ (valgrind)}"
	$vg "$b/check_$u" || { echo "FAILED: $u${vg:+ under valgrind}"; fail=1; }
done
exit $fail
