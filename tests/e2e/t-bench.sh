#!/bin/bash
# coresink-bench on pipe input: every variant's output is verified, the CSV has a row per run, the chart is drawn;
# and an output that came out wrong (a full tmpfs cuts it) is reported as FAILED, with exit status 1.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
BENCH=$B/coresink-bench
[ -x "$BENCH" ] || fail "no $BENCH"
scratch
list=null,splice,readwrite:buffer=64K:prealloc=ftruncate,naive-splice:prealloc=none
list=$list,splice:chunk=1M:hygiene=off:prealloc=extend,readwrite:chunk=1M:flush=on
out=$("$BENCH" --size 16M --runs 2 --dir "$T" --no-drop-caches --csv "$T/runs.csv" --plot "$T/chart.png" \
	--strategies "$list")
rc=$?
printf '%s\n' "$out"
check "the bench exits 0" test "$rc" -eq 0
check "every variant's output verified" test "$(printf '%s\n' "$out" | grep -c ' verified$')" -eq 6
# The table's rows (between the header and the footnote), their median column (the third).
medians=$(printf '%s\n' "$out" | sed -n '/^strategy /,/^(MB/p' | sed '1d;$d' | awk '{ print $3 }')
check "sorted by median throughput: $(echo $medians)" test "$medians" = "$(printf '%s\n' "$medians" | sort -rn)"
check "the null sink marked as the ceiling" has "$out" "ceiling  verified"
check "the CSV has a header and a row per run" test "$(wc -l < "$T/runs.csv")" -eq 13
check "the chart is a PNG" test "$(head -c 4 "$T/chart.png" | tail -c 3)" = PNG
for mode in 1m vmsplice; do
	for data in random zeros; do
		"$BENCH" --size 8M --runs 1 --dir "$T" --no-drop-caches --writes $mode --data $data \
			--strategies splice,readwrite > "$T/out"
		check "$mode writes of $data data: verified" test "$(grep -c ' verified$' "$T/out")" -eq 2
	done
done
"$BENCH" --strategies nonsense > /dev/null 2>&1
check "an unknown strategy is a usage error (100)" test $? -eq 100

[ "$(id -u)" -eq 0 ] || skip "the full-disk case needs root (mount)"
make_fs tmpfs "$T/small" 4
"$BENCH" --size 16M --runs 1 --dir "$T/small" --no-drop-caches --strategies readwrite > "$T/out"
rc=$?
check "an output cut by a full disk is reported as FAILED" has "$(cat "$T/out")" "FAILED: wrong size or checksum"
check "and the bench exits 1" test "$rc" -eq 1
