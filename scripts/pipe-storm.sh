#!/bin/bash
# pipe-storm.sh: a crash storm in pipe mode, as an operator meets a crash loop: N real crashes of MIB MiB in SECONDS
# seconds, in SECONDS bursts of N/SECONDS crashes let go at the same moment (build/crasher -W, through a FIFO),
# under the default config but for the directory, with kernel.core_pipe_limit=LIMIT. Counts the crashes with an
# entry, those the kernel dropped (its own log) and those coresink's report of them names; prints the handlers' peak
# total memory (RSS), the machine's lowest MemAvailable, and how long a probe (fork and exec of /bin/true, every
# 50 ms) took during the storm: the machine's responsiveness. The crashing processes touch a tenth of their memory
# (crasher -z 90), so that hundreds fit at once: their cores are MIB MiB all the same.
# Developer measurement for docs/storms.md, as root, from the top of the tree after 'make check'.
# usage: scripts/pipe-storm.sh [LIMIT [MIB [N [SECONDS]]]]
set -u
LIMIT=${1:-16} MIB=${2:-4} N=${3:-1000} SECONDS_=${4:-10}
[ "$(id -u)" -eq 0 ] || { echo "pipe-storm: needs root (kernel.core_pattern)" >&2; exit 100; }
[ -x build/coresink ] && [ -x build/crasher ] || { echo "pipe-storm: run 'make check' first" >&2; exit 100; }
. tests/e2e/lib.sh
T=$(mktemp -d /var/tmp/cs-storm.XXXXXX) || exit 111
at_exit "rm -rf '$T'"
start_journald
# The shell's notices of the crashes it reaps are expected: its stderr is /dev/null.
exec 2>/dev/null
write_config "$T/c.conf" "Directory=$T/cores" "Compress=yes"
use_handler "$T/c.conf"
echo "$LIMIT" > /proc/sys/kernel/core_pipe_limit
PER=$((N / SECONDS_))

# Samples every 20 ms until stopped: the handlers' total RSS (KiB) and MemAvailable (KiB); prints the peak and low.
sample() {
	local peak=0 low=999999999 rss avail
	while [ ! -e "$T/stop" ]; do
		rss=$(ps -C coresink -o rss= | awk '{ s += $1 } END { print s + 0 }')
		avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
		[ "$rss" -gt "$peak" ] && peak=$rss
		[ "$avail" -lt "$low" ] && low=$avail
		sleep 0.02
	done
	echo "$peak $low" > "$T/mem"
}

# Forks and execs /bin/true every 50 ms until stopped; prints how long each took, in us.
probe() {
	local t0
	while [ ! -e "$T/stop" ]; do
		t0=${EPOCHREALTIME/./}
		/bin/true
		echo $(( ${EPOCHREALTIME/./} - t0 ))
		sleep 0.05
	done > "$T/probe"
}

kmsg_mark
since=$(date '+%Y-%m-%d %H:%M:%S')
sample & sampler=$!
probe & prober=$!
t0=$(date +%s%N)
storm_ready 1 "$PER" "$MIB"
for k in $(seq "$SECONDS_"); do
	next=$(( t0 / 1000 + k * 1000000 ))
	[ "$k" -lt "$SECONDS_" ] && storm_ready $((k + 1)) "$PER" "$MIB"
	while [ "${EPOCHREALTIME/./}" -lt "$next" ]; do sleep 0.01; done
	storm_go "$k"
done
cat "$T"/pids.* > "$T/pids"
{ wait $(cat "$T/pids"); } 2>/dev/null
t1=$(date +%s%N)
storm_settle "$T/c.conf"
touch "$T/stop"
wait "$sampler" "$prober"

storm_count "$T/pids" "$since"
kmsg_since > "$T/kmsg"
sed -n 's/.*coredump: \([0-9]*\)(.*over core_pipe_limit.*/\1/p' "$T/kmsg" | sort > "$T/dropped"
# The kernel rate-limits these lines: past 10 in 5 s it counts the rest, and says so with its next one.
unnamed=$(sed -n 's/.*coredump_pipe: \([0-9]*\) callbacks suppressed.*/\1/p' "$T/kmsg" |
	awk '{ s += $1 } END { print s + 0 }')
dropped=$(comm -12 "$T/want" "$T/dropped" | wc -l)
read -r peak low < "$T/mem"
probe_stats=$(sort -n "$T/probe" | awk '{ v[NR] = $1 / 1000 } END {
	printf "median %.1f ms, p99 %.1f ms, max %.1f ms", v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.5)], v[NR] }')
echo "pipe storm: core_pipe_limit=$LIMIT, $N crashes of $MIB MiB in $(( (t1 - t0) / 1000000 )) ms:" \
	"$RECORDED with an entry, $dropped dropped by the kernel by name and $unnamed more lines it held back," \
	"$REPORTED of the named in coresink's report" \
	"($((RECORDED + REPORTED)) of $N recorded; $BOTH counted twice); handlers' peak RSS $((peak / 1024)) MiB," \
	"lowest MemAvailable $((low / 1024)) MiB; probe (fork+exec) $probe_stats"
