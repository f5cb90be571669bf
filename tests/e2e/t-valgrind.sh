#!/bin/bash
# valgrind over the handler itself on a pipe, both strategies: no error, no leak, identical output.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "the core directory must be root's"
command -v valgrind >/dev/null || fail "valgrind missing"
scratch
head -c $((40 * 1024 * 1024 + 777)) /dev/urandom > "$T/in"
for strategy in splice readwrite; do
	rm -rf "$T/cores"
	write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "ChunkSize=4M" "Strategy=$strategy"
	cat "$T/in" | valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		"$CORESINK" --config "$T/c.conf" $$ 0 0 11 "$(date +%s)" "$UNLIMITED" host vgtest 1 "" 2> "$T/vg"
	rc=$?
	check "$strategy: clean under valgrind (status $rc)" test "$rc" -eq 0 -a ! -s "$T/vg"
	check "$strategy: output identical" cmp -s "$T/in" "$(only_file "$T/cores")"
done
