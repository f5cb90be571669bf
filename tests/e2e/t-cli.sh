#!/bin/bash
# The command line, table-driven: exit status and output of each form, including hostile operands.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
scratch
write_config "$T/good.conf" "Directory=/var/lib/coresink" "KeepFree=10%"
write_config "$T/bad.conf" "Directory=relative" "Bogus=1"
long=$T/$(printf 'x%.0s' $(seq 90)).conf
cp "$T/good.conf" "$long"

# expect STATUS PATTERN -- ARGS...: runs the handler, checks its status and that stdout+stderr match PATTERN.
expect() {
	want=$1 pat=$2; shift 3
	out=$("$CORESINK" "$@" 2>&1 </dev/null); got=$?
	[ "$got" -eq "$want" ] || fail "coresink $*: status $got, expected $want: $out"
	printf '%s\n' "$out" | grep -qE -- "$pat" || fail "coresink $*: output does not match /$pat/: $out"
	ok "coresink $* -> $want"
}

expect 0 '^usage: coresink \[--config FILE\] \[--handler PATH\] --core-pattern' -- --help
expect 0 '^coresink [0-9.]+$' -- --version
expect 100 '^usage:' --
expect 100 '^usage:' -- --bogus
expect 100 '^usage:' -- --core-pattern extra
expect 0 "^\|$CORESINK %P %u %g %s %t %c %h %e %d %F %I$" -- --core-pattern
expect 0 "^\|$CORESINK --config $T/good.conf %P %u %g %s %t %c %h %e %d %F %I$" -- --config "$T/good.conf" --core-pattern
expect 100 'longer than 127 bytes' -- --config "$long" --core-pattern
expect 100 'No such file' -- --config relative.conf --core-pattern
expect 0 '^KeepFree=10%$' -- --config "$T/good.conf" --check-config
expect 1 "bad.conf:2: bad value 'relative' for Directory" -- --config "$T/bad.conf" --check-config
expect 1 "unknown key 'Bogus'" -- --config "$T/bad.conf" --check-config
expect 1 'cannot read /nonexistent.conf' -- --config /nonexistent.conf --check-config
expect 0 '^usage:' -- --config "$T/bad.conf" --help --check-config
expect 1 '^Directory=/var/lib/coresink$' -- --config "$T/bad.conf" --check-config

# Kernel mode with a hostile comm that looks like an option: it stays an operand and names a safe file.
[ "$(id -u)" -eq 0 ] || skip "the kernel-mode cases need root (the core directory must be root's)"
write_config "$T/k.conf" "Directory=$T/cores" "KeepFree=1M"
head -c 100000 /dev/urandom > "$T/in"
"$CORESINK" --config "$T/k.conf" $$ 0 0 11 0 "$UNLIMITED" host "--check-config" 1 "" < "$T/in" >"$T/out" 2>&1
check "an option-like comm is an operand: status 0" test $? -eq 0
check "and prints nothing" test ! -s "$T/out"
check "and names core.--check-config.PID.UTC" test -f "$T/cores/core.--check-config.$$.19700101T000000Z"
rm -rf "$T/cores"
"$CORESINK" --config "$T/k.conf" $$ 0 0 11 0 "$UNLIMITED" host $'../../x\n/y' 1 "" < "$T/in"
check "a comm with slashes and a newline stays inside Directory" test -f "$T/cores/core._._.._x__y.$$.19700101T000000Z"
rm -rf "$T/cores"
"$CORESINK" --config "$T/k.conf" $$ 0 0 11 0 "$UNLIMITED" host c 2 "" < "$T/in"
check "dump mode 2 (not dumpable by its owner) stores 0600" \
	test "$(stat -c %a "$T/cores/core.c.$$.19700101T000000Z")" = 600
rm -rf "$T/cores"
"$CORESINK" --config "$T/k.conf" x y < "$T/in"
check "wrong arguments still store the core" cmp -s "$T/in" "$(only_file "$T/cores")"
check "as root only (unknown dump mode)" test "$(stat -c %a "$(only_file "$T/cores")")" = 600
