#!/bin/bash
# crash-bench.sh: crash-to-stored time of real crashes under each handler, as root. Restores kernel.core_pattern.
# usage: src/bench/crash-bench.sh [-s MIB] [-n RUNS] [-d DIR] [-w WORKLOAD] [MODE...]
#   WORKLOAD: dense (the pattern, no zero page), core (one page in three zero), threads (50 idle threads, each with
#         its stack, as the Python case), sparse (90% zero pages).
#   MODE: readwrite, splice, naive-splice (coresink with that Strategy=; readwrite:dense is Sparse=no),
#         kernel (the kernel writes DIR/core.%p), cat (a naive '|sh -c cat>file' handler),
#         systemd-coredump (when installed; socket-activated, as without systemd as PID 1; it stores after the
#         crash has returned, compressed: "stored" is when its file appears);
#   and the two ceilings, measured in the same run: null (coresink-bench --drain: the kernel emitting into a sink
#         that grows the pipe to 1 MiB and splices to /dev/null) and direct (dd writing as many MiB with O_DIRECT
#         to DIR: the disk). "ratio" is each mode's median over the larger ceiling's.
# Runs are interleaved (A B C A B C) so that drift hits all modes alike; caches are dropped before each run.
# "stored" means: the handler has exited (kernel.core_pipe_limit makes the crash wait for it), for coresink after
# fdatasync; the kernel's own write is not synced. cache = growth of Cached in /proc/meminfo over the capture.
set -u
size=1024 runs=3 dir=/var/tmp/coresink-bench workload=dense
while getopts s:n:d:w: o; do
	case $o in s) size=$OPTARG ;; n) runs=$OPTARG ;; d) dir=$OPTARG ;; w) workload=$OPTARG ;; *) exit 100 ;; esac
done
shift $((OPTIND - 1))
case $workload in
dense) crash_args="" ;;
core) crash_args="-z 33" ;;
threads) crash_args="-T 50" ;;
sparse) crash_args="-z 90" ;;
*) echo "crash-bench: unknown workload $workload" >&2; exit 100 ;;
esac
modes=${*:-readwrite readwrite:dense splice naive-splice kernel cat null direct}
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
	null) echo "|$b/coresink-bench --drain" > /proc/sys/kernel/core_pattern ;;
	direct)
		# Not a crash: the disk's own rate for as many bytes, written with O_DIRECT and synced.
		t0=$(date +%s%N)
		dd if=/dev/zero of="$dir/cores/core.direct" bs=16M count=$(( (size + 15) / 16 )) oflag=direct conv=fsync status=none
		t1=$(date +%s%N)
		echo "$mode,$(( (t1 - t0) / 1000 )),$((size << 20)),$((size << 20)),0,0,yes"
		rm -f "$dir"/cores/core.*
		return ;;
	systemd-coredump)
		[ -S /run/systemd/coredump ] || { echo "$mode,0,0,0,unavailable"; return; }
		rm -f "$SDC_DIR"/core.crasher.*
		echo "|$SDC %P %u %g %s %t 9223372036854775808 %h %d" > /proc/sys/kernel/core_pattern ;;
	*)
		# A benchmark is a crash loop: the rate limits and the quota would (rightly) stop it.
		printf '[Coresink]\nDirectory=%s/cores\nStrategy=%s\nSparse=%s\nKeepFree=1G\nMaxUse=100%%\nRateLimitBurst=0\nRateLimitGlobalBurst=0\n' \
			"$dir" "${mode%%:*}" "$(case $mode in *:dense) echo no ;; *) echo yes ;; esac)" > "$dir/c.conf"
		"$b/coresink" --config "$dir/c.conf" --core-pattern > /proc/sys/kernel/core_pattern ;;
	esac
	sync; echo 3 > /proc/sys/vm/drop_caches
	c0=$(cached)
	# shellcheck disable=SC2086
	( ulimit -c unlimited; exec "$b/crasher" -t $crash_args "$size" ) > "$dir/t0" 2>/dev/null &
	cpid=$!
	{ wait $cpid; } 2>/dev/null
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
	disk=$([ -n "$f" ] && echo $(( $(stat -c %b "$f") * 512 )) || echo 0)
	# coresink's own peak RSS, from this crash's journal entry when a journald took it.
	rss=0
	case $mode in kernel|cat|null|systemd-coredump) ;; *)
		rss=$(journalctl --no-pager -o export "COREDUMP_PID=$cpid" \
			MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1 2>/dev/null | tr -d '\0' | sed -n 's/^CORESINK_MAXRSS=//p') ;;
	esac
	echo "$mode,$(( (t1 - $(cat "$dir/t0")) / 1000 )),$bytes,$disk,$(( c1 - c0 )),${rss:-0},$ok"
	rm -f "$dir"/cores/core.*
}

case " $modes " in *" systemd-coredump "*) sdc_start || echo "crash-bench: systemd-coredump unavailable" >&2 ;; esac
echo "mode,usec,bytes,disk_bytes,cache_growth,rss,complete" > "$dir/runs.csv"
for r in $(seq "$runs"); do
	for m in $modes; do
		one_run "$m" | tee -a "$dir/runs.csv" >&2
	done
done
echo
echo "crash-to-stored, ${size} MiB $workload crash, median of $runs runs ($(uname -r), $(nproc) CPUs, $(df -T "$dir" | awk 'NR==2 {print $2}'))"
# col MODE N: column N of MODE's runs, sorted numerically.
col() { grep "^$1," "$dir/runs.csv" | cut -d, -f"$2" | sort -n; }
median() { awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ceiling=0
for m in null direct; do
	case " $modes " in *" $m "*) t=$(col "$m" 2 | median); [ "$t" -gt "$ceiling" ] && ceiling=$t ;; esac
done
printf '%-16s %8s %8s %8s %7s %10s %10s %9s %8s %s\n' mode min_s median_s max_s ratio size_MiB disk_MiB cache_MiB rss_KiB complete
for m in $modes; do
	t=$(col "$m" 2)
	med=$(echo "$t" | median)
	bad=$(grep "^$m," "$dir/runs.csv" | grep -vc ',yes$')
	printf '%-16s %8.2f %8.2f %8.2f %7s %10.0f %10.0f %9.0f %8.0f %s\n' "$m" \
		"$(echo "$t" | head -1 | awk '{ print $1 / 1e6 }')" "$(awk -v t="$med" 'BEGIN { print t / 1e6 }')" \
		"$(echo "$t" | tail -1 | awk '{ print $1 / 1e6 }')" \
		"$([ "$ceiling" -gt 0 ] && awk -v t="$med" -v c="$ceiling" 'BEGIN { printf "%.2fx", t / c }' || echo -)" \
		"$(col "$m" 3 | median | awk '{ print $1 / 1048576 }')" "$(col "$m" 4 | median | awk '{ print $1 / 1048576 }')" \
		"$(col "$m" 5 | median | awk '{ print $1 / 1048576 }')" "$(col "$m" 6 | median | awk '{ print $1 / 1024 }')" \
		"$([ "$bad" -eq 0 ] && echo all || echo "$bad INCOMPLETE")"
done
