#!/bin/bash
# What opening the mapped files (src/lib/intake/mapped.c) costs a crash: the time from the crash to the release of
# the process, pipe mode, with about 20 and about 500 files with code mapped (mapprog loading 16 or 496 copies of its
# library), with StackTrace=no (nothing opened) and StackTrace=yes (every file opened while the kernel holds the
# process), interleaved; the median of RUNS (10) each. The trace itself is made after the release, and is not in it.
# usage: scripts/mapped-cost.sh [BUILDDIR [RUNS]]  (as root; sets kernel.core_pattern and puts it back)
set -eu
B=$(cd "${1:-build}" && pwd)
RUNS=${2:-10}
TOP=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /var/tmp/coresink-mapped-cost.XXXXXX)
. "$TOP/scripts/keep-pattern.sh"
keep_pattern "$T"
cc -O0 -g -shared -fPIC -o "$T/libmaplib.so" "$TOP/tests/helpers/maplib.c"
cc -O0 -g -o "$T/mapprog" "$TOP/tests/helpers/mapprog.c" -L"$T" -lmaplib -Wl,-rpath,'$ORIGIN' -ldl
mkdir "$T/libs" "$T/cores"
for i in $(seq 496); do cp "$T/libmaplib.so" "$T/libs/lib$i.so"; done
echo 16 > /proc/sys/kernel/core_pipe_limit
for trace in no yes; do
	printf '[Coresink]\nDirectory=%s/cores\nKeepFree=64M\nMaxUse=100%%\nRateLimitBurst=0\nRateLimitGlobalBurst=0\nCompress=no\nStackTrace=%s\n' \
		"$T" "$trace" > "$T/$trace.conf"
done

# release N CONF: ms from the crash of mapprog with N extra libraries to its release (its parent sees it end).
release() {
	local t0 t1 libs
	libs=$(seq "$1" | sed "s|.*|$T/libs/lib&.so|")
	"$B/coresink" --config "$2" --core-pattern > /proc/sys/kernel/core_pattern
	t0=$( (ulimit -c unlimited; exec "$T/mapprog" 0 $libs) 2>/dev/null || true)
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 ))
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "crash to release, microseconds, median of $RUNS (min-max); $(nproc) CPUs, $(uname -r)"
for n in 16 496; do
	: > "$T/no.$n"; : > "$T/yes.$n"
	for _ in $(seq "$RUNS"); do
		release "$n" "$T/no.conf" >> "$T/no.$n"
		release "$n" "$T/yes.conf" >> "$T/yes.$n"
		rm -f "$T/cores"/core.*
	done
	files=$(( n + 4 ))
	printf '%4d files: StackTrace=no %s (%s-%s), StackTrace=yes %s (%s-%s)\n' "$files" \
		"$(median < "$T/no.$n")" "$(sort -n "$T/no.$n" | head -1)" "$(sort -n "$T/no.$n" | tail -1)" \
		"$(median < "$T/yes.$n")" "$(sort -n "$T/yes.$n" | head -1)" "$(sort -n "$T/yes.$n" | tail -1)"
done
