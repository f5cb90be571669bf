#!/bin/sh
# Runs the Check suites: usage: run-units.sh [--valgrind] [-j N] BUILDDIR UNIT...
# Under valgrind, CK_FORK=no keeps every test in the process valgrind watches. With -j N, N suites run at a time
# (each its own temporary directories and names: none shares a fixed resource with another); their output is shown
# whole, suite after suite, in the order given.
set -u
vg="" jobs=1
while [ $# -gt 0 ]; do
	case $1 in
	--valgrind)
		vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --trace-children=no"
		export CK_FORK=no
		shift ;;
	-j) jobs=$2; shift 2 ;;
	*) break ;;
	esac
done
b=$1
shift
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
export vg b out
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c '
	{ echo "== {}${vg:+ (valgrind)}"; $vg "$b/check_{}" 2>&1 || echo "FAILED: {}${vg:+ under valgrind}"; } > "$out/{}" 2>&1'
fail=0
for u in "$@"; do
	cat "$out/$u"
	grep -q '^FAILED: ' "$out/$u" && fail=1
done
exit $fail
