#!/bin/bash
# A crash storm: 48 real crashes within seconds, 12 at a time, against a small MaxUse on a small file system: dense
# cores on tmpfs, and sparse ones (half their pages zero) on tmpfs, ext4 and btrfs, where MaxUse counts what cores take on
# disk. The quota holds at every moment (sampled every 100 us: one chunk of slack at most), KeepFree too, no
# temporary file remains, and every crash has exactly one journal entry.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it mounts file systems, sets kernel.core_pattern and starts systemd-journald"
scratch
start_journald
MIB=$((1024 * 1024))

# storm FSTYPE ZERO_PERCENT: one storm of crashes of 6 MiB with that share of zero pages.
storm() {
	local fs=$T/fs-$1-$2 wave i pids=() wave_pids=() base t0 t1 low samples total
	local peak kept
	make_fs "$1" "$fs" 160
	write_config "$T/c.conf" "Directory=$fs/cores" "KeepFree=16M" "MaxUse=48M" "ChunkSize=1M" \
		"RateLimitBurst=0" "RateLimitGlobalBurst=0"
	use_handler "$T/c.conf"
	base=$(( $(stat -f -c %b "$fs") * $(stat -f -c %S "$fs") - $(avail "$fs") ))
	"$FREEWATCH" "$fs" > "$T/low" & watch=$!
	t0=$(date +%s%N)
	# The shell's notices of the crashes are expected; keep them out of the output.
	{
		for wave in 1 2 3 4; do
			wave_pids=()
			for i in $(seq 12); do
				( ulimit -c unlimited; exec "$CRASHER" -z "$2" 6 ) &
				wave_pids+=($!)
			done
			wait "${wave_pids[@]}"
			pids+=("${wave_pids[@]}")
		done
	} 2>/dev/null
	t1=$(date +%s%N)
	kill -TERM "$watch"; wait "$watch"
	read -r low samples < "$T/low"
	total=$(( $(stat -f -c %b "$fs") * $(stat -f -c %S "$fs") ))
	peak=$(( total - low - base ))
	tally "${pids[@]}"
	# What the cores take on disk, as MaxUse counts them.
	kept=$(du -B1 -c "$fs"/cores/core.* 2>/dev/null | tail -n 1 | cut -f1)
	echo "storm ($1, $2% zero pages): ${#pids[@]} crashes in $(( (t1 - t0) / 1000000 )) ms: $SUMMARY;" \
		"$VACUUMED old cores removed; $(entries "$fs/cores" | wc -l) cores kept, ${kept:-0} B on disk;" \
		"peak use $peak B of MaxUse $((48 * MIB)) B; lowest free $low B of KeepFree $((16 * MIB)) B ($samples samples)"
	check "$1, $2%: every crash has exactly one journal entry" test "$MISSING" -eq 0
	check "$1, $2%: cores were stored" test "${RESULTS[stored]:-0}" -gt 0
	check "$1, $2%: every crash was stored or cut at the quota: none failed or suppressed" \
		test $(( ${RESULTS[stored]:-0} + ${RESULTS[truncated]:-0} )) -eq "${#pids[@]}"
	check "$1, $2%: the quota held at every sample, one chunk of slack at most ($peak B)" \
		test "$peak" -le $((49 * MIB))
	check "$1, $2%: the quota holds at the end (${kept:-0} B)" test "${kept:-0}" -le $((48 * MIB))
	check "$1, $2%: the reserve held ($low B)" test "$low" -ge $((16 * MIB))
	sync -f "$fs"
	check "$1, $2%: and holds once all is on disk ($(avail "$fs") B)" test "$(avail "$fs")" -ge $((16 * MIB))
	# The metrics (MetricsFile=, docs/metrics.md): this storm's crashes counted, each once, by the handlers at once.
	for _ in $(seq 50); do
		counted=$("$B/coresinkctl" --config "$T/c.conf" metrics | awk '/^coresink_crashes_total\{/ { n += $2 } END { print n + 0 }')
		[ "$counted" -ge "${#pids[@]}" ] && break
		sleep 0.1
	done
	check "$1, $2%: the metrics count ${#pids[@]} crashes, exactly ($counted)" test "$counted" = "${#pids[@]}"
	check "$1, $2%: no temporary or stray file remains" \
		test -z "$(entries "$fs/cores" | grep -v '^core\.crasher\.')"
	if [ "$2" -ge 50 ]; then
		# Counted by their sizes, the cores kept would be over MaxUse; counted on disk, they are under it.
		apparent=$(du -B1 --apparent-size -c "$fs"/cores/core.* | tail -n 1 | cut -f1)
		check "$1, $2%: MaxUse counts the disk, not the size: $(entries "$fs/cores" | wc -l) cores of $apparent B kept" \
			test "$apparent" -gt $((48 * MIB))
	fi
}

storm tmpfs 0
storm tmpfs 50
storm ext4 50
storm btrfs 50
