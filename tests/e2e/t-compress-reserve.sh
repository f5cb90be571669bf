#!/bin/bash
# The reserve while a core is compressed, on every file system, sampled every 100 us during the captures (not only
# once all is synced): three 900 MiB crashes in a row on a 1 GiB file system, KeepFree=256M, the defaults otherwise
# (compression on) but MaxUse=100%, as the report that found btrfs 33 MB under the reserve. The raw core would not
# fit over KeepFree, so it is compressed as it comes (zstd's threads, xfs's speculative preallocation of a growing
# file: both once took it under), and cut at the reserve. Free space never falls under KeepFree, and every crash
# has an entry with a core. Then two more, encrypted (Encrypt=): compressed, and with Compress=no, whose chunks are
# reserved ahead as a raw core's.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it mounts file systems and sets kernel.core_pattern"
scratch
start_journald
MIB=$((1024 * 1024))
# The tests' own key (tests/e2e/age-test-key.txt).
AGE_PUBLIC=$(sed -n 's/^# public key: //p' "$(dirname "$0")/age-test-key.txt")

for fs in btrfs xfs ext4 tmpfs; do
	m=$T/$fs
	make_fs "$fs" "$m" 1024
	"$FREEWATCH" "$m" > "$T/low" &
	watch=$!
	at_exit "kill $watch 2>/dev/null"
	for i in 1 2 3 4 5; do
		case $i in
		4) how=("Compress=yes" "Encrypt=$AGE_PUBLIC") ;;
		5) how=("Compress=no" "Encrypt=$AGE_PUBLIC") ;;
		*) how=("Compress=yes") ;;
		esac
		write_config "$T/c.conf" "Directory=$m/cores" "KeepFree=256M" "MaxUse=100%" "RateLimitBurst=0" \
			"RateLimitGlobalBurst=0" "${how[@]}"
		# The pattern names the config file, whatever it says: set once.
		if [ "$i" -eq 1 ]; then use_handler "$T/c.conf"; fi
		crash 900
		e=$(journal_entry "$CRASH_PID") || fail "$fs: crash $i: no entry"
		echo "     $fs: crash $i: $(field "$e" CORESINK_RESULT), $(field "$e" CORESINK_SIZE) B," \
			"${e:+$(field "$e" CORESINK_COMPRESSED)$(field "$e" CORESINK_COMPRESS)}"
		name=$(field "$e" COREDUMP_FILENAME)
		check "$fs: crash $i: a core is kept" test -n "$name"
		if [ "$i" -ge 4 ]; then check "$fs: crash $i: encrypted (.age)" test "${name%.age}" != "$name"; fi
	done
	# The last crash's compression and analysis run after its process is let go: wait for its handler.
	for _ in $(seq 100); do pgrep -f "^$CORESINK --config $T/c.conf" > /dev/null || break; sleep 0.1; done
	kill -TERM "$watch"; wait "$watch"
	read -r low samples < "$T/low"
	check "$fs: free space never under KeepFree during the captures: lowest $low B in $samples samples" \
		test "$low" -ge $((256 * MIB))
done
