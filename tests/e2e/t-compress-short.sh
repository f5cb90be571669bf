#!/bin/bash
# A core that does not fit raw but fits compressed is stored whole: compressed as it comes (every core is, with
# Compress=yes), the limits are checked on the compressed bytes written. Real crashes on a small tmpfs and a small
# ext4: 192 MiB of memory, nine pages in ten zero (the raw core would take ~180 MB where 112 MB are free over the
# reserve), stored whole as .zst, with its stack trace, and the reserve sampled every 100 us throughout.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it mounts file systems, sets kernel.core_pattern and starts systemd-journald"
command -v zstd >/dev/null || skip "no zstd"
scratch
start_journald
MIB=$((1024 * 1024))

for fs in tmpfs ext4; do
	m=$T/$fs
	make_fs "$fs" "$m" 160
	write_config "$T/c.conf" "Directory=$m/cores" "KeepFree=32M" "MaxUse=100%" "Compress=yes" \
		"RateLimitBurst=0" "RateLimitGlobalBurst=0"
	use_handler "$T/c.conf"
	"$FREEWATCH" "$m" > "$T/low" &
	watch=$!
	at_exit "kill $watch 2>/dev/null"

	crash_z 192 90
	e=$(journal_entry "$CRASH_PID") || fail "$fs: no entry"
	handlers_done "$T/c.conf"
	core=$(field "$e" COREDUMP_FILENAME)
	echo "     $fs: $(field "$e" CORESINK_RESULT), $(field "$e" CORESINK_SIZE) B: $(field "$e" CORESINK_COMPRESSED)," \
		"RSS $(field "$e" CORESINK_MAXRSS) B"
	check "$fs: stored whole, not truncated" has_line "$e" "CORESINK_RESULT=stored"
	check "$fs: compressed as it came" matches "$e" '^CORESINK_COMPRESSED=zstd as it came, [0-9]+ bytes, level 1'
	check "$fs: as a .zst file, the only one in the directory" test "$(entries "$m/cores")" = "$(basename "$core")"
	check "$fs: a valid zstd frame, checksum included" zstd -tq "$core"
	zstd -dcq "$core" > "$T/raw" || fail "$fs: zstd -d"
	check "$fs: which decompresses to the process's memory" "$PATCHECK" "$T/raw" 192 90
	check "$fs: a complete ELF core" "$PATCHECK" --elf "$T/raw"
	check "$fs: CORESINK_SIZE is the core's size" has_line "$e" "CORESINK_SIZE=$(file_size "$T/raw")"
	check "$fs: the raw core would not have fit over KeepFree" \
		test "$(file_size "$T/raw")" -gt $(( (160 - 32) * MIB ))
	rss=$(field "$e" CORESINK_MAXRSS)
	[ -n "$rss" ] && check "$fs: the handler's peak RSS with zstd's threads: $rss B, within 16 MiB" \
		test "$rss" -le $((16 * MIB))
	check "$fs: with its stack trace, made of the stacks read as the dump began" \
		has "$(entry_message "$CRASH_PID")" "Stack trace of thread $CRASH_PID:"
	rm -f "$T/raw" "$m"/cores/core.*

	kill -TERM "$watch"; wait "$watch"
	read -r low samples < "$T/low"
	check "$fs: free space never under KeepFree: lowest $low B in $samples samples" test "$low" -ge $((32 * MIB))
done

# Socket mode: the same, on the connection the kernel dumps into.
if have_socket_mode; then
	m=$T/sockfs
	make_fs tmpfs "$m" 160
	write_config "$T/sock.conf" "Directory=$m/cores" "KeepFree=32M" "MaxUse=100%" "Compress=yes" \
		"RateLimitBurst=0" "RateLimitGlobalBurst=0" "Socket=$T/sock/kernel.socket"
	start_server "$T/sock.conf"
	use_socket "$T/sock.conf"
	crash_z 192 90
	e=$(journal_entry "$CRASH_PID") || fail "socket mode: no entry"
	core=$(field "$e" COREDUMP_FILENAME)
	check "socket mode: stored whole, compressed as it came" \
		matches "$e" '^CORESINK_COMPRESSED=zstd as it came, [0-9]+ bytes'
	check "socket mode: stored, not truncated" has_line "$e" "CORESINK_RESULT=stored"
	zstd -dcq "$core" > "$T/raw" || fail "socket mode: zstd -d"
	check "socket mode: which decompresses to the process's memory" "$PATCHECK" "$T/raw" 192 90
	# Its data does not shrink: from the chunk whose data zstd found did not shrink (judged at its end, or on its first
	# MiB: the first chunk's after the head), the chunks go out stored, and ReadAhead=auto's thread starts there.
	ra=$(field "$e" CORESINK_READ_AHEAD) from=${ra#by a thread from byte } from=${from%% *} at=0
	[[ $from =~ ^[0-9]+$ ]] && at=$((from % (16 * MIB)))
	check "socket mode: read ahead by a thread from the first stored byte on ($ra)" \
		eval '((from > 0 && from < 192 * MIB && (at == 0 || (at >= MIB && at < 2 * MIB))))'
	stop_server
else
	echo "SKIP $NAME: no socket mode here (Linux 6.17): socket mode not tried"
fi
