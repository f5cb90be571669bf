#!/bin/sh
# Checks that every include in src/lib runs down the stages: a file in src/lib/STAGE/ includes files of its own
# folder, or the one header (src/lib/OTHER.h) of a stage listed after its own below; a stage header includes its own
# folder only. The programs include stage headers; the tests may also name a stage's inner header (STAGE/x.h) to
# test it. Prints the arrows between stages; exit 1 on the first wrong include, with the file and line.
# usage: check-layout.sh [TOP]    (TOP: the source tree, . by default)
set -eu
cd "${1:-.}"

# From the flow down to what every stage uses; the order the Makefile, the README and docs/design.md give.
STAGES="admin flow report config ledger tidy analyse sandbox store intake write minicore base"

rank() {
	i=0
	for s in $STAGES; do
		[ "$s" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}

bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
arrows=$tmp/arrows inc=$tmp/inc
: > "$arrows"

# includes FILE: each quoted include of FILE as "LINE NAME".
includes() {
	grep -n '^#include "' "$1" | sed 's/^\([0-9]*\):#include "\(.*\)"$/\1 \2/'
}

wrong() {
	echo "check-layout: $1:$2: #include \"$3\": $4" >&2
	bad=1
}

for s in $STAGES; do
	[ -d "src/lib/$s" ] && [ -f "src/lib/$s.h" ] || { echo "check-layout: no src/lib/$s/ or src/lib/$s.h" >&2; exit 1; }
	r=$(rank "$s")
	includes "src/lib/$s.h" > "$inc"
	while read -r line name; do
		case $name in "$s"/*) [ -f "src/lib/$name" ] && continue ;; esac
		wrong "src/lib/$s.h" "$line" "$name" "a stage header names its own folder's headers only"
	done < "$inc"
	for f in src/lib/"$s"/*.[ch]; do
		includes "$f" > "$inc"
		while read -r line name; do
			[ -f "src/lib/$s/$name" ] && continue
			t=${name%.h}
			tr=$(rank "$t")
			if [ "$tr" -lt 0 ] || [ "$name" != "$t.h" ]; then
				wrong "$f" "$line" "$name" "neither in $s/ nor a stage header"
			elif [ "$tr" -le "$r" ]; then
				wrong "$f" "$line" "$name" "runs up, from $s to $t"
			else
				echo "$s -> $t" >> "$arrows"
			fi
		done < "$inc"
	done
done

# The programs and the tests: their own files, a stage header, or (tests only) a stage's inner header. No program
# includes another's header: what two of them offer is the library's (the admin stage).
for f in src/coresink/*.[ch] src/coresinkctl/*.[ch] src/bench/*.[ch] src/bench/*/*.[ch] tests/*.[ch] tests/fuzz/*.c; do
	d=$(dirname "$f")
	includes "$f" > "$inc"
	while read -r line name; do
		[ -f "$d/$name" ] && continue
		case $f:$name in
		# coresink-bench: each benchmark takes what they share; its main, each benchmark's header.
		src/bench/*/*:*) [ -f "src/bench/shared/$name" ] && continue ;;
		src/bench/*.c:*) { [ -f "src/bench/pipe/$name" ] || [ -f "src/bench/crash/$name" ]; } && continue ;;
		tests/*:producer.h|tests/*:pattern.h|tests/fuzz/*:unit.h) continue ;;
		# fuzz_entry forges what coresinkctl's summary groups.
		tests/fuzz/fuzz_entry.c:summary.h) [ -f src/coresinkctl/summary.h ] && continue ;;
		tests/*:*/*) [ -f "src/lib/$name" ] && continue ;;
		esac
		[ "$(rank "${name%.h}")" -ge 0 ] && [ "$name" = "${name%.h}.h" ] && continue
		wrong "$f" "$line" "$name" "not a stage header"
	done < "$inc"
done

# Guards of what one home holds (issue 61, 63): one JSON string writer (base/escape.c's escape_json); no file of the
# handler's over 700 lines; no Debian mirror's host name in the tree (tests take the machine's: apt_mirror).
for f in $(grep -rlE '^(static )?void [a-z_]*json_string\(|fputs\("\\\\u' src tests 2>/dev/null); do
	echo "check-layout: $f: a JSON string writer of its own (escape_json is the one)" >&2
	bad=1
done
for f in src/lib/*/*.c src/coresink/*.c; do
	n=$(wc -l < "$f")
	[ "$n" -le 700 ] || { echo "check-layout: $f: $n lines, over 700 (split it by concern)" >&2; bad=1; }
done
# One budget: free space is read in the write stage alone (room.c for a core's chunks, side.c for every file beside
# them), so that nothing the handler or coresinkctl writes takes the room a capture was promised. The benchmark,
# which measures and stores nothing, is not the handler's.
for f in $(grep -rlE '\b(f?statv?fs(64)?)[[:space:]]*\(' src/lib src/coresink src/coresinkctl 2>/dev/null); do
	case $f in src/lib/write/*) continue ;; esac
	echo "check-layout: $f: reads free space itself (statfs/statvfs): ask the write stage (side_room, side_space)" >&2
	bad=1
done
# Cleanup by scope (base/cleanup.h: _cleanup_close_, TAKE_FD, fd_close): close( is left for what a scope cannot say
# (a child's fds before exec, a connection handed on), under 80 calls in all.
closes=$(grep -rnE '(^|[^A-Za-z0-9_])close[[:space:]]*\(' src --include=*.c | grep -cv '^[^:]*:[0-9]*:[[:space:]]*/\?\*')
if [ "$closes" -ge 80 ]; then
	echo "check-layout: $closes close( calls in src: fds are closed by their scope (base/cleanup.h), under 80" >&2
	bad=1
fi
# Shared code names no program: what it says begins with the running one's name (fail_code, diag_print_as).
if grep -rnE '"coresink(ctl)?: ' src/lib; then
	echo "check-layout: a program's name written in shared code (src/lib): say it with fail_code() or diag_print_as()" >&2
	bad=1
fi
# Release in one place: the crashed process is let go from two call sites at most (crash.c's crash_release is the
# one that does it).
sites=$(grep -rnE '\bcrash_release[[:space:]]*\(' src --include=*.c | grep -v '^src/lib/flow/crash\.c:[0-9]*:void crash_release' |
	grep -cv '^[^:]*:[0-9]*:[[:space:]]*/\?\*')
if [ "$sites" -gt 2 ]; then
	echo "check-layout: crash_release() is called from $sites places: the process is let go from two at most" >&2
	grep -rnE '\bcrash_release[[:space:]]*\(' src --include=*.c >&2
	bad=1
fi
if grep -rnE 'deb\.debian\.org|ftp\.[a-z]*\.debian\.org' scripts tests src Makefile debian/rules 2>/dev/null; then
	echo "check-layout: a Debian mirror's host name in the tree (take the machine's own apt sources)" >&2
	bad=1
fi

[ "$bad" -eq 0 ] || exit 1
echo "check-layout: $(sort -u "$arrows" | wc -l) arrows between the $(echo $STAGES | wc -w) stages, all down:"
sort "$arrows" | uniq -c | awk '{ printf "  %s %s %s (%d)\n", $2, $3, $4, $1 }'
