#!/bin/bash
# socket-bench.sh: pipe mode against socket mode, timed per crash: a crash storm, and refused crashes. N real crashes of MIB MiB each
# (the test helper build/crasher), started at once, each handled by coresink with the default config but for the
# directory and the rate limits; for every crash: released (its crash to its parent's wait returning) and stored
# (its crash to its file's final name, the link's ctime). Prints min, median and max of both per mode, and how
# many were stored: pipe mode runs with kernel.core_pipe_limit=16 (what 'make enable' set before 128). Then what
# a refused crash costs: 5 crashes of REJECT_MIB MiB under ulimit -c 0 (skipped by the pipe helper after the kernel started
# it and began dumping; refused before the dump in socket mode; and, for the floor, no handler at all, the
# kernel skipping the dump), released min, median and max.
# Developer measurement for docs/socket-mode.md, as root, from the top of the tree after 'make check'.
# usage: scripts/socket-bench.sh [N [MIB [REJECT_MIB [DIR]]]]
set -u
N=${1:-40} MIB=${2:-64} REJECT_MIB=${3:-512} DIR=${4:-/var/tmp}
B=$(pwd)/build
[ "$(id -u)" -eq 0 ] || { echo "socket-bench: needs root (kernel.core_pattern)" >&2; exit 100; }
[ -x "$B/coresink" ] && [ -x "$B/crasher" ] || { echo "socket-bench: run 'make check' first" >&2; exit 100; }
T=$(mktemp -d "$DIR/cs-socket.XXXXXX") || exit 111
old_pattern=$(cat /proc/sys/kernel/core_pattern) old_limit=$(cat /proc/sys/kernel/core_pipe_limit)
server=""
cleanup() {
	printf '%s\n' "$old_pattern" > /proc/sys/kernel/core_pattern
	echo "$old_limit" > /proc/sys/kernel/core_pipe_limit
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# stats FILE: "min median max" of the numbers in FILE, in seconds.
stats() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.3f %.3f %.3f", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

# handler MODE: coresink as the handler in MODE with the scratch config: pipe, socket (socket:N for
# SocketMaxParallel=N), or none (no handler: the kernel's file pattern, which RLIMIT_CORE 0 skips entirely).
handler() {
	rm -rf "$T/cores" "$T/t" && mkdir -p "$T/cores" "$T/t" && chmod 755 "$T/cores"
	printf '[Coresink]\nDirectory=%s\nRateLimitBurst=0\nRateLimitGlobalBurst=0\nSocket=%s/sock/k.sock\n' \
		"$T/cores" "$T" > "$T/c.conf"
	case $1 in socket:*) echo "SocketMaxParallel=${1#socket:}" >> "$T/c.conf" ;; esac
	if [ "$1" = none ]; then
		echo "$T/cores/core" > /proc/sys/kernel/core_pattern
	elif [ "${1%%:*}" = socket ]; then
		"$B/coresink" --config "$T/c.conf" --serve 2>/dev/null &
		server=$!
		for _ in $(seq 50); do [ -S "$T/sock/k.sock" ] && break; sleep 0.1; done
		"$B/coresink" --config "$T/c.conf" --core-pattern --socket > /proc/sys/kernel/core_pattern
	else
		"$B/coresink" --config "$T/c.conf" --core-pattern > /proc/sys/kernel/core_pattern
		echo 16 > /proc/sys/kernel/core_pipe_limit
	fi
}

unhandle() {
	if [ -n "$server" ]; then kill "$server"; wait "$server" 2>/dev/null; server=""; fi
}

# storm MODE: one storm, its crashes timed into $T/released and $T/stored.
storm() {
	local i t0 t1 f waits=()
	handler "$1"
	sync; echo 3 > /proc/sys/vm/drop_caches
	for i in $(seq "$N"); do
		(
			( ulimit -c unlimited; exec "$B/crasher" -t "$MIB" ) > "$T/t/$i.t0" 2>/dev/null &
			p=$!
			wait "$p" 2>/dev/null
			echo "$p $(date +%s%N)" > "$T/t/$i.t1"
		) &
		waits+=($!)
	done 2>/dev/null
	wait "${waits[@]}" 2>/dev/null
	# Files get their final names after the release (compression): wait for all, or for 5 s without a new one
	# (pipe mode drops the crashes beyond kernel.core_pipe_limit before they reach any handler).
	local c prev=-1 still=0
	while [ "$still" -lt 50 ]; do
		c=$(ls "$T/cores" | grep -c '^core\..*\.zst$')
		[ "$c" -ge "$N" ] && break
		if [ "$c" = "$prev" ]; then still=$((still + 1)); else still=0; fi
		prev=$c
		sleep 0.1
	done
	# Times of the stored crashes only: a crash dropped before any handler is let go at once, which is no speed.
	: > "$T/released"; : > "$T/stored"
	for i in $(seq "$N"); do
		read -r pid t1 < "$T/t/$i.t1"
		t0=$(cat "$T/t/$i.t0")
		f=$(ls "$T/cores" | grep "\.$pid\." | head -n 1)
		[ -n "$f" ] || continue
		echo "$(( t1 - t0 ))" | awk '{ print $1 / 1e9 }' >> "$T/released"
		awk -v a="$(stat -c %.9Z "$T/cores/$f")" -v b="$t0" 'BEGIN { print a - b / 1e9 }' >> "$T/stored"
	done
	printf '%-9s %3d crashes of %d MiB: released %s s, stored %s s (min median max); %d of %d stored\n' "$1" \
		"$N" "$MIB" "$(stats "$T/released")" "$(stats "$T/stored")" "$(wc -l < "$T/stored")" "$N"
	unhandle
}

# refused MODE: five crashes under ulimit -c 0, one after the other.
refused() {
	local i t0 t1
	handler "$1"
	: > "$T/released"
	for i in 1 2 3 4 5; do
		( ulimit -c 0; exec "$B/crasher" -t "$REJECT_MIB" ) > "$T/t0" 2>/dev/null &
		p=$!
		wait "$p" 2>/dev/null
		t1=$(date +%s%N)
		echo "$(( t1 - $(cat "$T/t0") ))" | awk '{ print $1 / 1e9 }' >> "$T/released"
	done 2>/dev/null
	printf '%-9s refused crashes of %d MiB (ulimit -c 0): released %s s (min median max)\n' "$1" "$REJECT_MIB" \
		"$(stats "$T/released")"
	unhandle
}

for mode in pipe socket socket:16 pipe socket socket:16; do
	storm "$mode"
done
for mode in none pipe socket none pipe socket; do
	refused "$mode"
done
