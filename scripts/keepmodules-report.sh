#!/bin/bash
# What KeepModules= costs, on real crashes (docs/debuginfod.md): a program linked to its own copy of a big library
# (Debian's libLLVM, 117 MB, or the biggest one named by LIB=), both deleted while it runs (an upgrade's work), then
# crashed; N crashes with KeepModules=no and N with yes, one after the other. For each: the release (kill until the
# process is let go), the entry (the crash's time until its entry, _SOURCE_REALTIME_TIMESTAMP - COREDUMP_TIMESTAMP),
# and what the directory holds after. With yes, the first crash copies the modules; the later ones link them. The
# ceiling of the copy: dd of the same library to the same file system, synced as the kept copy is.
# usage: scripts/keepmodules-report.sh [BUILDDIR [N]]   (as root, with the users make install creates)
set -u
B=$(cd "${1:-build}" && pwd)
N=${2:-10}
export B CORESINK_TEST_NAME=keepmodules-report
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root "it sets kernel.core_pattern"
LIB=${LIB:-$(ls /usr/lib/x86_64-linux-gnu/libLLVM-*.so.1 2>/dev/null | tail -n 1)}
[ -f "$LIB" ] || fail "no library to copy: set LIB= (Debian's libllvm15 has a big one)"
scratch
chmod 0755 "$T"
start_journald
mkdir -p "$T/src"
echo 'int main(void) { for (;;) pause(); }' | sed '1i #include <unistd.h>' > "$T/src/prog.c"

# install: the program and its copy of the library at their paths in $T/bin, fresh files each time.
install_prog() {
	rm -rf "$T/bin" && mkdir -p "$T/bin" && cp "$LIB" "$T/bin/" &&
		cc -O1 -o "$T/bin/prog" "$T/src/prog.c" -Wl,--no-as-needed "$T/bin/$(basename "$LIB")" \
			-Wl,-rpath,"$T/bin" || fail "building prog"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The ceiling of the copy: the library copied by dd on the same file system, synced (as the kept copy is), 3 times.
for _ in 1 2 3; do
	t0=$(date +%s%N)
	dd if="$LIB" of="$T/ceiling" bs=16M conv=fsync status=none || fail "dd"
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
	rm -f "$T/ceiling"
done | median > "$T/ceil"
echo "== $N crashes each way: prog with its own $(basename "$LIB") ($(stat -c %s "$LIB") bytes), both deleted before the crash"
echo "   ($(nproc) CPUs, Linux $(uname -r), $(date -u +%F))"
for keep in no yes; do
	write_config "$T/c.conf" "Directory=$T/cores-$keep" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
		"KeepModules=$keep" "MaxUse=100%" "KeepFree=1G"
	use_handler "$T/c.conf"
	: > "$T/rel"; : > "$T/entry"
	for i in $(seq "$N"); do
		install_prog
		( ulimit -c unlimited; exec "$T/bin/prog" ) & pid=$!
		for _ in $(seq 100); do grep -q "$(basename "$LIB")" /proc/$pid/maps 2>/dev/null && break; sleep 0.05; done
		rm -rf "$T/bin"
		t0=$(date +%s%N)
		kill -SEGV "$pid"; wait "$pid" 2>/dev/null
		echo $(( ($(date +%s%N) - t0) / 1000000 )) >> "$T/rel"
		e=$(journal_entry "$pid") || fail "no entry of crash $i"
		src=$(jctl -o export COREDUMP_PID="$pid" MESSAGE_ID=$MESSAGE_ID | sed -n 's/^_SOURCE_REALTIME_TIMESTAMP=//p' | tail -n 1)
		echo $(( (src - $(field "$e" COREDUMP_TIMESTAMP)) / 1000 )) >> "$T/entry"
		[ "$i" = 1 ] && first_entry=$(tail -n 1 "$T/entry") first_said=$(field "$e" CORESINK_MODULES_KEPT)
	done
	printf 'KeepModules=%-3s release %s ms; entry %s ms (the first crash %s ms); directory %s\n' "$keep" \
		"$(median < "$T/rel")" "$(median < "$T/entry")" "$first_entry" "$(du -sh "$T/cores-$keep" | cut -f1)"
	[ "$keep" = yes ] && echo "  the first crash: CORESINK_MODULES_KEPT=$first_said" &&
		echo "  kept: $(find "$T/cores-yes/.modules/.build-id" -type f | wc -l) files, $(du -sh "$T/cores-yes/.modules" | cut -f1)"
done
echo "the ceiling: dd of the library to the same file system, fsync'd: $(cat "$T/ceil") ms (median of 3)"
