#!/bin/bash
# minimal-vs-full.sh [RUNS]: real crashes stored whole and as minimal cores (Core=minimal), side by side: the median
# of RUNS (5) of the time from the crash to the process being let go, and the core's bytes on disk. Crashes a C
# program with 16 threads, Python and Node with threads (where installed), and a process holding 1 GiB. Needs root
# and a build (make); sets kernel.core_pattern and puts it back at exit. Compress=no, so that the bytes are the
# core's own. docs/rules.md.
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${1:-5}
CR=build/crasher
W=$(mktemp -d /tmp/coresink-minimal.XXXXXX) || exit 1
. scripts/keep-pattern.sh
keep_pattern "$W"
echo 16 > /proc/sys/kernel/core_pipe_limit
for c in full minimal; do
	printf '[Coresink]\nDirectory=%s/%s\nKeepFree=64M\nMaxUse=20G\nRateLimitBurst=0\nRateLimitGlobalBurst=0\n' \
		"$W" "$c" > "$W/$c.conf"
	printf 'Compress=no\nStackTraceMaxSize=2G\nCore=%s\n' "$([ $c = full ] && echo full || echo minimal)" >> "$W/$c.conf"
done

# one CONF CMD...: one crash (CMD prints the CLOCK_REALTIME ns of its crash) and its handler's end: "ms bytes".
one() {
	local conf=$1 t0 t1 at f
	shift
	build/coresink --config "$W/$conf.conf" --core-pattern > /proc/sys/kernel/core_pattern
	rm -rf "${W:?}/$conf"
	t0=$(date +%s%N)
	{ ( ulimit -c unlimited; exec "$@" > "$W/out" ) & p=$!; wait $p; } 2>/dev/null
	t1=$(date +%s%N)
	at=$(grep -m1 -oE '^[0-9]{19}$' "$W/out")
	# The handler goes on after the release (analysis): wait for its file to be published and the handler gone.
	for _ in $(seq 100); do
		f=$(ls "$W/$conf"/core.* 2>/dev/null | head -n 1)
		[ -n "$f" ] && ! pgrep -f "coresink --config $W/" >/dev/null && break
		sleep 0.1
	done
	echo "$(( (t1 - ${at:-$t0}) / 1000000 )) $(( $(stat -c %b "$f") * 512 ))"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# row LABEL CMD...: the table's row for one workload.
row() {
	local label=$1 c
	shift
	for c in full minimal; do
		for _ in $(seq "$RUNS"); do one "$c" "$@"; done > "$W/r.$c"
	done
	printf '| %s | %s | %s | %s | %s |\n' "$label" \
		"$(cut -d' ' -f2 "$W/r.full" | median)" "$(cut -d' ' -f1 "$W/r.full" | median)" \
		"$(cut -d' ' -f2 "$W/r.minimal" | median)" "$(cut -d' ' -f1 "$W/r.minimal" | median)"
}

echo "| crash | full: bytes on disk | full: released (ms) | minimal: bytes on disk | minimal: released (ms) |"
echo "| --- | ---: | ---: | ---: | ---: |"
row "C, 16 threads, 64 MiB" "$CR" -t -T 16 64
[ -x /usr/bin/python3 ] && row "Python 3.11, 4 threads" /usr/bin/python3 -c '
import os, signal, threading, time
ev = threading.Event()
for _ in range(4): threading.Thread(target=ev.wait, daemon=True).start()
time.sleep(0.5)
print(time.time_ns(), flush=True)
os.kill(os.getpid(), signal.SIGSEGV)'
command -v node > /dev/null && row "Node $(node --version)" node -e \
	'setTimeout(() => { console.log((BigInt(Date.now()) * 1000000n).toString()); process.abort() }, 200)'
row "1 GiB dense" "$CR" -t 1024
