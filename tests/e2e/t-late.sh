#!/bin/bash
# A file system that reports late (btrfs: statfs shows written, preallocated and unlinked bytes only once its
# transaction commits), as in the report that made coresink learn it: crashes larger than the room, one after the
# other, against KeepFree. The first is cut at the reserve; each next one removes the previous core to make room,
# and then gets that room: no core is removed for a crash that is not stored. Free space, once all is on disk, never
# below KeepFree. The same on ext4 and xfs, whose unlinks show late too (xfs) or not at all late (ext4).
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it mounts file systems and sets kernel.core_pattern"
scratch
start_journald
MIB=$((1024 * 1024))

for fs in btrfs xfs ext4; do
	m=$T/$fs
	make_fs "$fs" "$m" 512
	write_config "$T/c.conf" "Directory=$m/cores" "KeepFree=64M" "MaxUse=100%" "RateLimitBurst=0" \
		"RateLimitGlobalBurst=0"
	use_handler "$T/c.conf"
	room=$(( $(avail "$m") - 64 * MIB ))
	for i in 1 2 3; do
		crash 448
		e=$(journal_entry "$CRASH_PID") || fail "$fs: crash $i: no entry"
		result=$(field "$e" CORESINK_RESULT) size=$(field "$e" CORESINK_SIZE) removed=$(field "$e" CORESINK_VACUUMED)
		late=$(field "$e" CORESINK_LATE_STATFS)
		echo "     $fs: crash $i: $result, $size B, ${removed:-0} old core(s) removed;" \
			"late statfs: ${late:-0}; sync: $(field "$e" CORESINK_SYNC)"
		check "$fs: crash $i is stored, cut at the reserve" test "$result" = truncated
		check "$fs: crash $i got most of the room (${size} B of ~$room B)" test "$size" -gt $((room / 2))
		[ "$i" -gt 1 ] && check "$fs: crash $i removed the previous core to make room" test "${removed:-0}" -eq 1
		check "$fs: crash $i: one core in the directory" test "$(entries "$m/cores" | wc -l)" -eq 1
		sync -f "$m"
		check "$fs: crash $i: once all is on disk, $(avail "$m") B free, KeepFree 64 MiB" \
			test "$(avail "$m")" -ge $((64 * MIB))
		sleep 0.5
	done
done
