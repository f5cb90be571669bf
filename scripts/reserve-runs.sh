#!/bin/bash
# reserve-runs.sh: how close captures come to KeepFree, file system by file system, over many ENOSPC runs. As root;
# everything it mounts or sets is undone at exit (it uses the end-to-end tests' helpers).
# usage: scripts/reserve-runs.sh [RUNS] [FS...]      (default: 20 runs on tmpfs ext4 xfs btrfs)
# Each run: a 64 MiB crash into 48 MiB of free space with KeepFree=16M, free space sampled every 100 us during the
# capture (statfs, as the handler sees it) and read again after a sync (what is really on disk, for btrfs).
runs=${1:-20}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- tmpfs ext4 xfs btrfs
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root "it mounts file systems and sets kernel.core_pattern"
make -s -C "$TOP" B="$B" all "$B/crasher" "$B/freewatch" >&2 || exit 111
scratch
MIB=$((1024 * 1024))
printf '%-6s %5s %16s %16s %16s %10s\n' fs runs lowest_sampled lowest_synced keep_free truncated
for f in "$@"; do
	m=$T/$f
	make_fs "$f" "$m" 320
	mkdir "$m/cores"
	fallocate -l $(( $(avail "$m") - 48 * MIB )) "$m/filler" || fail "$f: fallocate"
	write_config "$T/c.conf" "Directory=$m/cores" "KeepFree=16M" "MaxUse=100%" "RateLimitBurst=0" \
		"RateLimitGlobalBurst=0"
	use_handler "$T/c.conf"
	low_all=-1 synced_all=-1 cut=0
	for _ in $(seq "$runs"); do
		rm -f "$m"/cores/core.*
		sync -f "$m"
		"$FREEWATCH" "$m" > "$T/low" & watch=$!
		crash 64
		kill -TERM "$watch"; wait "$watch"
		read -r low _ < "$T/low"
		sync -f "$m"
		synced=$(avail "$m")
		[ "$(stat -c %s "$m"/cores/core.* 2>/dev/null || echo 0)" -lt $((64 * MIB)) ] && cut=$((cut + 1))
		[ "$low_all" -lt 0 ] || [ "$low" -lt "$low_all" ] && low_all=$low
		[ "$synced_all" -lt 0 ] || [ "$synced" -lt "$synced_all" ] && synced_all=$synced
	done
	printf '%-6s %5s %16s %16s %16s %10s\n' "$f" "$runs" "$low_all" "$synced_all" $((16 * MIB)) "$cut"
done
