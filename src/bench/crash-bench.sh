#!/bin/bash
# crash-bench.sh: crash-to-stored time of real crashes under each handler, as root. Restores kernel.core_pattern.
# usage: src/bench/crash-bench.sh [-s MIB] [-n RUNS] [-d DIR] [MODE...]
#   MODE: splice, readwrite, naive-splice (coresink with that Strategy=), kernel (the kernel writes DIR/core.%p),
#         cat (a naive '|sh -c cat>file' handler), null (dd into /dev/null: the ceiling, nothing stored),
#         systemd-coredump (when installed; socket-activated, as without systemd as PID 1; it stores after the
#         crash has returned, compressed: "stored" is when its file appears).
# Runs are interleaved (A B C A B C) so that drift hits all modes alike; caches are dropped before each run.
# "stored" means: the handler has exited (kernel.core_pipe_limit makes the crash wait for it), for coresink after
# fdatasync; the kernel's own write is not synced. cache = growth of Cached in /proc/meminfo over the capture.
set -u
size=1024 runs=3 dir=/var/tmp/coresink-bench
while getopts s:n:d: o; do
	case $o in s) size=$OPTARG ;; n) runs=$OPTARG ;; d) dir=$OPTARG ;; *) exit 100 ;; esac
done
shift $((OPTIND - 1))
modes=${*:-splice readwrite naive-splice kernel cat null}
[ $# -eq 0 ] && [ -x /lib/systemd/systemd-coredump ] && modes="$modes systemd-coredump"
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build
[ "$(id -u)" -eq 0 ] || { echo "crash-bench: needs root" >&2; exit 100; }
make -s -C "$top" all build/crasher build/patcheck >&2 || exit 111

old_pattern=$(cat /proc/sys/kernel/core_pattern)
old_limit=$(cat /proc/sys/kernel/core_pipe_limit)
cleanup() {
	if [ -n "$sdc_pid" ]; then
		kill "$sdc_pid" 2>/dev/null
		wait "$sdc_pid" 2>/dev/null
		rm -f /run/systemd/coredump
	fi
	rm -f "$SDC_DIR"/core.crasher.*
	printf '%s\n' "$old_pattern" > /proc/sys/kernel/core_pattern
	echo "$old_limit" > /proc/sys/kernel/core_pipe_limit
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$dir/cores" && chmod 0755 "$dir"
echo 16 > /proc/sys/kernel/core_pipe_limit

cached() { awk '/^Cached:/ { print $2 * 1024 }' /proc/meminfo; }

SDC=/lib/systemd/systemd-coredump
SDC_DIR=/var/lib/systemd/coredump
sdc_pid=""
# systemd-coredump without systemd as PID 1: its kernel-side helper hands the core to a socket-activated instance.
# Started once, from the main shell (one_run runs in a pipeline's subshell), and stopped by cleanup.
sdc_start() {
	command -v systemd-socket-activate >/dev/null && [ -x "$SDC" ] || return 1
	mkdir -p "$SDC_DIR" /run/systemd
	systemd-socket-activate --seqpacket -a -l /run/systemd/coredump "$SDC" >/dev/null 2>&1 &
	sdc_pid=$!
	for _ in $(seq 50); do [ -S /run/systemd/coredump ] && return 0; sleep 0.1; done
	return 1
}
# The newest core systemd-coredump finished (it writes a hidden temporary name first).
sdc_core() { ls -t "$SDC_DIR"/core.crasher.* 2>/dev/null | head -n 1; }

one_run() {
	mode=$1
	case $mode in
	kernel) echo "$dir/cores/core.%p" > /proc/sys/kernel/core_pattern ;;
	# The kernel splits the pattern at blanks before expanding it: no blank may stand inside an argument.
	cat) echo "|/bin/sh -c cat>$dir/cores/core.cat" > /proc/sys/kernel/core_pattern ;;
	null) echo "|/bin/dd of=/dev/null bs=1M" > /proc/sys/kernel/core_pattern ;;
	systemd-coredump)
		[ -S /run/systemd/coredump ] || { echo "$mode,0,0,0,unavailable"; return; }
		rm -f "$SDC_DIR"/core.crasher.*
		echo "|$SDC %P %u %g %s %t 9223372036854775808 %h %d" > /proc/sys/kernel/core_pattern ;;
	*)
		# A benchmark is a crash loop: the rate limits and the quota would (rightly) stop it.
		printf '[Coresink]\nDirectory=%s/cores\nStrategy=%s\nKeepFree=1G\nMaxUse=100%%\nRateLimitBurst=0\nRateLimitGlobalBurst=0\n' \
			"$dir" "$mode" > "$dir/c.conf"
		"$b/coresink" --config "$dir/c.conf" --core-pattern > /proc/sys/kernel/core_pattern ;;
	esac
	sync; echo 3 > /proc/sys/vm/drop_caches
	c0=$(cached)
	( ulimit -c unlimited; exec "$b/crasher" -t "$size" ) > "$dir/t0" 2>/dev/null &
	{ wait $!; } 2>/dev/null
	if [ "$mode" = systemd-coredump ]; then
		for _ in $(seq 6000); do [ -n "$(sdc_core)" ] && break; sleep 0.01; done
	fi
	t1=$(date +%s%N)
	c1=$(cached)
	f=$(ls "$dir/cores"/core.* 2>/dev/null | head -1)
	ok=no
	[ -n "$f" ] && "$b/patcheck" --elf "$f" >/dev/null && ok=yes
	[ "$mode" = null ] && ok=yes   # nothing is stored: it only shows how fast the kernel can dump
	if [ "$mode" = systemd-coredump ]; then
		# Compressed: complete when zstd reads it whole.
		f=$(sdc_core)
		[ -n "$f" ] && zstd -t -q "$f" 2>/dev/null && ok=yes
		rm -f "$SDC_DIR"/core.crasher.*
	fi
	bytes=$([ -n "$f" ] && stat -c %s "$f" || echo 0)
	echo "$mode,$(( (t1 - $(cat "$dir/t0")) / 1000 )),$bytes,$(( c1 - c0 )),$ok"
	rm -f "$dir"/cores/core.*
}

case " $modes " in *" systemd-coredump "*) sdc_start || echo "crash-bench: systemd-coredump unavailable" >&2 ;; esac
echo "mode,usec,bytes,cache_growth,complete" > "$dir/runs.csv"
for r in $(seq "$runs"); do
	for m in $modes; do
		one_run "$m" | tee -a "$dir/runs.csv" >&2
	done
done
echo
echo "crash-to-stored, ${size} MiB crash, median of $runs runs ($(uname -r), $(nproc) CPUs, $(df -T "$dir" | awk 'NR==2 {print $2}'))"
printf '%-14s %10s %10s %8s %14s %s\n' mode min_s median_s max_s cache_MiB complete
# col MODE N: column N of MODE's runs, sorted numerically.
col() { grep "^$1," "$dir/runs.csv" | cut -d, -f"$2" | sort -n; }
median() { awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for m in $modes; do
	t=$(col "$m" 2)
	bad=$(grep "^$m," "$dir/runs.csv" | grep -vc ',yes$')
	printf '%-14s %10.2f %10.2f %8.2f %14.0f %s\n' "$m" \
		"$(echo "$t" | head -1 | awk '{ print $1 / 1e6 }')" "$(echo "$t" | median | awk '{ print $1 / 1e6 }')" \
		"$(echo "$t" | tail -1 | awk '{ print $1 / 1e6 }')" "$(col "$m" 4 | median | awk '{ print $1 / 1048576 }')" \
		"$([ "$bad" -eq 0 ] && echo all || echo "$bad INCOMPLETE")"
done
