#!/bin/bash
# The reserve on each real file system (tmpfs, and loop-mounted ext4, xfs and btrfs): a crash larger than the room
# above KeepFree never takes free space below it (sampled every 100 us during the capture, and after a sync: btrfs
# shows written bytes in statfs only once its transaction commits); then another process fills the disk while a
# capture runs, and the capture stops cleanly at the reserve, its core kept and logged. On ext4 and xfs the flushes
# that empty the disk's cache behind the copy (FlushBehind=) reach the loop device.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it mounts file systems and sets kernel.core_pattern"
scratch
start_journald
MIB=$((1024 * 1024))
reserve=$((16 * MIB))
clean_truncation() { all_of "$1" CORESINK_RESULT=truncated && ! matches "$1" '^CORESINK_ERROR='; }
# dev_flushes DIR: the flushes DIR's loop device has completed (its stat's 16th field); 0 for tmpfs.
dev_flushes() {
	local d
	d=$(findmnt -no SOURCE "$1")
	case $d in /dev/loop*) awk '{ print $16 }' "/sys/block/${d##*/}/stat" ;; *) echo 0 ;; esac
}

for fs in tmpfs ext4 xfs btrfs; do
	m=$T/$fs
	make_fs "$fs" "$m" 320
	mkdir "$m/cores"
	# Leave 48 MiB free: 32 MiB of room above a 16 MiB reserve for a 64 MiB crash.
	fallocate -l $(( $(avail "$m") - 48 * MIB )) "$m/filler" || fail "$fs: fallocate filler"
	write_config "$T/c.conf" "Directory=$m/cores" "KeepFree=16M" "MaxUse=100%" "ChunkSize=4M" "RateLimitBurst=0"
	use_handler "$T/c.conf"

	"$FREEWATCH" "$m" > "$T/low" & watch=$!
	crash 64
	kill -TERM "$watch"; wait "$watch"
	read -r low samples < "$T/low"
	e=$(journal_entry "$CRASH_PID") || fail "$fs: no journal entry"

	core=$(only_file "$m/cores") || exit 1
	size=$(file_size "$core")
	check "$fs: free space never below KeepFree: lowest $low of $reserve B ($samples samples)" test "$low" -ge "$reserve"
	sync -f "$m"
	synced=$(avail "$m")
	check "$fs: nor once all is on disk: $synced of $reserve B" test "$synced" -ge "$reserve"
	# The room less the metadata margin, and on ext4 less the 8 MiB its preallocation may take (engine.c).
	check "$fs: the core filled the room ($size B > 20 MiB) and was cut" \
		test "$size" -gt $((20 * MIB)) -a "$size" -lt $((64 * MIB))
	check "$fs: logged truncated by KeepFree" \
		all_of "$e" CORESINK_RESULT=truncated CORESINK_LIMIT=KeepFree
	"$PATCHECK" "$core" 64 >/dev/null; pat=$?
	check "$fs: what was kept is the process's memory, in order" test "$pat" -eq 1
	# Its room given back before the next crash: btrfs frees a removed file's extents at its next commit, and
	# without one the next capture could find only the reserve left (CI saw it store nothing, once).
	rm -f "$core"
	sync -f "$m"

	# Another writer eats 16 of the 48 free MiB while a 64 MiB crash is captured (on ext4 the 16 left above the
	# reserve less its 8 MiB of slack).
	( dd if=/dev/zero of="$m/other" bs=1M count=16 status=none; sync ) &
	other=$!
	crash 64
	wait "$other"
	e=$(journal_entry "$CRASH_PID") || fail "$fs: no journal entry"
	core=$(only_file "$m/cores") || exit 1
	check "$fs: with another writer, the capture still stops cleanly: stored, truncated, no error" \
		clean_truncation "$e"
	"$PATCHECK" "$core" 64 >/dev/null; pat=$?
	check "$fs: and its core is a clean prefix ($(file_size "$core") B)" test "$pat" -eq 1
	check "$fs: and free space is left: $(avail "$m") B" test "$(avail "$m")" -gt 0

	# The disk's cache emptied as the core comes (FlushBehind=, write/flush.c): the same 128 MiB crash without and
	# with it, the loop device's flushes counted around each. Those the entry counts must reach the device: about
	# as many more than without (the ledger's and the journal's own flushes vary by a few: 4 and 6 here). btrfs
	# sends none for the empty file flush.c syncs; tmpfs has no disk.
	case $fs in ext4|xfs)
		rm -f "$m/filler" "$m/other" "$m"/cores/core.*
		sync -f "$m"
		for fb in no yes; do
			write_config "$T/c.conf" "Directory=$m/cores" "KeepFree=16M" "MaxUse=100%" "ChunkSize=4M" \
				"RateLimitBurst=0" "FlushBehind=$fb"
			f0=$(dev_flushes "$m")
			crash 128
			e=$(journal_entry "$CRASH_PID") || fail "$fs: no journal entry (FlushBehind=$fb)"
			eval "dev_$fb=$(( $(dev_flushes "$m") - f0 ))"
			n=$(field "$e" CORESINK_FLUSH) n=${n%% *}
			rm -f "$m"/cores/core.*
			sync -f "$m"
		done
		# A slow disk makes fewer flushes (one in flight at most), so the count asked of the entry is small; the
		# device must show nearly all it says (a flush may merge with the journal's), and three at least.
		more=$((dev_yes - dev_no))
		check "$fs: FlushBehind=yes: $n flushes said, $dev_yes on the device against $dev_no without" \
			test "${n:-0}" -ge 4 -a "$more" -ge 3 -a $((more * 4)) -ge $(( ${n:-0} * 3 )) ;;
	esac
done
