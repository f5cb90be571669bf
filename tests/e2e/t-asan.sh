#!/bin/bash
# The handler built with ASan+UBSan ('make check' builds it in BUILDDIR/asan), on a pipe: both strategies, a limit
# that cuts the core, hostile and malformed arguments, a config full of garbage. Any sanitizer report fails.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "the core directory must be root's"
asan=$B/asan/coresink
[ -x "$asan" ] || skip "no $asan: run 'make check', which builds it"
scratch
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 UBSAN_OPTIONS=halt_on_error=1:exitcode=99
head -c $((24 * 1024 * 1024 + 5)) /dev/urandom > "$T/in"
{ echo "[Coresink]"; head -c 3000 /dev/urandom; echo; echo "MetricsFile=$T/coresink.prom"; } > "$T/garbage.conf"

run() {
	local what=$1; shift
	rm -rf "$T/cores"
	"$asan" "$@" < "$T/in" > "$T/out" 2> "$T/err"
	rc=$?
	check "$what: no sanitizer report (status $rc)" \
		bash -c '[ "$1" -ne 99 ] && ! grep -qE "Sanitizer|runtime error" "$2"' _ "$rc" "$T/err"
}
for s in splice readwrite; do
	write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "Strategy=$s" "ChunkSize=1M"
	run "$s" --config "$T/c.conf" $$ 0 0 11 "$(date +%s)" "$UNLIMITED" host asan 1 ""
	check "$s: output identical" cmp -s "$T/in" "$(only_file "$T/cores")"
done
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "MaxCoreSize=3M" "ChunkSize=1M"
run "cut at MaxCoreSize" --config "$T/c.conf" $$ 0 0 11 0 "$UNLIMITED" host asan 1 ""
run "hostile comm and hostname" --config "$T/c.conf" $$ 0 0 11 0 "$UNLIMITED" $'h\n\x01' $'../\xff\n--x' 1 ""
run "malformed arguments" --config "$T/c.conf" -- x -1 99999999999999999999999 "" "" "" "" "" 7 nope
run "a garbage config" --config "$T/garbage.conf" --check-config
