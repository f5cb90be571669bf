#!/bin/sh
# Runs each libFuzzer harness for SECONDS on its corpus (BUILDDIR/fuzz/corpus-NAME, seeded from tests/fuzz/corpus/NAME),
# JOBS at a time: usage: run.sh BUILDDIR SECONDS JOBS NAME...
# Each prints its totals and "no finding"; one that finds a crash prints the end of its log, and the run fails.
set -u
b=$1 seconds=$2 jobs=$3
shift 3
top=$(cd "$(dirname "$0")/../.." && pwd)
export b seconds top
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c '
	mkdir -p "$b/fuzz/corpus-{}"
	(cd "$b/fuzz" && ./fuzz_{} -max_total_time="$seconds" -print_final_stats=1 corpus-{} "$top/tests/fuzz/corpus/{}" \
		> fuzz_{}.log 2>&1); rc=$?
	{ grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added)" "$b/fuzz/fuzz_{}.log"
	  if [ $rc -ne 0 ]; then tail -n 40 "$b/fuzz/fuzz_{}.log"; echo "fuzz_{}: FOUND A CRASH"
	  else echo "fuzz_{}: no finding in $seconds s"; fi; } | sed "s/^/[{}] /"
	# The status is the fuzzer'"'"'s, not the pipeline'"'"'s (sed'"'"'s): a finding fails the run (xargs: 123).
	[ $rc -eq 0 ]'
