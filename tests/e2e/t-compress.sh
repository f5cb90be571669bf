#!/bin/bash
# Compressed cores (Compress=yes): a real crash is stored as a zstd file that decompresses to the process's memory,
# after the process is let go; coredumpctl dump returns its bytes and coredumpctl debug opens it. The disk policy
# counts the raw core and its compressed copy while both exist: where both do not fit above KeepFree or under
# MaxUse, the complete raw core is kept instead, never less, and the reserve holds all the while. Old compressed
# cores are vacuumed like raw ones. A core whose first 64 MiB shrink by less than a tenth is kept raw.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it mounts a tmpfs, sets kernel.core_pattern and starts systemd-journald"
command -v zstd >/dev/null || skip "no zstd"
scratch
start_journald
MIB=$((1024 * 1024))
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"Compress=yes"
use_handler "$T/c.conf"

# Incompressible memory (the pattern, no zero page): not worth a second copy, the raw core stays; the same memory
# with half its pages zero is compressed.
crash_z 96 0
e=$(journal_entry "$CRASH_PID") || fail "no entry"
handlers_done "$T/c.conf"
check "incompressible: kept raw: $(field "$e" CORESINK_COMPRESS)" \
	matches "$e" '^CORESINK_COMPRESS=not worth it, stored uncompressed: its first [0-9]+ bytes, [0-9]+ of them data \(not holes\), came to [0-9]+$'
check "incompressible: the raw core, whole, and nothing else" \
	test "$(entries "$T/cores")" = "$(basename "$(field "$e" COREDUMP_FILENAME)")"
"$PATCHECK" "$(field "$e" COREDUMP_FILENAME)" 96 >/dev/null || fail "incompressible: the raw core is not whole"
rm -f "$T"/cores/core.*
crash_z 96 50
e=$(journal_entry "$CRASH_PID") || fail "no entry"
handlers_done "$T/c.conf"
check "half zeros: compressed" matches "$(field "$e" COREDUMP_FILENAME)" '\.zst$'
rm -f "$T"/cores/core.*

crash_z 32 50
e=$(journal_entry "$CRASH_PID") || fail "no entry"
core=$(field "$e" COREDUMP_FILENAME)
check "stored as a .zst file: $core" matches "$core" '\.zst$'
check "the only file in the directory (no raw or temporary one left)" test "$(entries "$T/cores")" = "$(basename "$core")"
check "a valid zstd frame, checksum included" zstd -tq "$core"
zstd -dcq "$core" > "$T/raw" || fail "zstd -d"
check "which decompresses to the process's memory" "$PATCHECK" "$T/raw" 32 50
check "a complete ELF core" "$PATCHECK" --elf "$T/raw"
check "CORESINK_SIZE is the core's size" has_line "$e" "CORESINK_SIZE=$(file_size "$T/raw")"
check "CORESINK_DISK is what the .zst takes" has_line "$e" "CORESINK_DISK=$(( $(stat -c %b "$core") * 512 ))"
check "CORESINK_COMPRESSED says how small: $(field "$e" CORESINK_COMPRESSED)" \
	has_line "$e" "CORESINK_COMPRESSED=zstd, $(file_size "$core") bytes in $(field "$e" CORESINK_COMPRESSED | sed 's/.* in //')"
# The pattern does not compress (it is random-like); the zero pages do, to nothing.
check "the zero half compressed away: $(file_size "$core") B for 16 MiB of data" test "$(file_size "$core")" -lt $((18 * MIB))
check "the stack trace was made from the raw core" has "$(entry_message "$CRASH_PID")" "Stack trace of thread $CRASH_PID:"
if command -v coredumpctl >/dev/null; then
	cdctl dump "$CRASH_PID" -o "$T/dumped" >/dev/null 2>&1
	check "coredumpctl dump returns the core's bytes" cmp -s "$T/dumped" "$T/raw"
	if command -v gdb >/dev/null; then
		bt=$(cdctl debug "$CRASH_PID" --debugger-arguments="-batch -ex bt" 2>&1)
		check "coredumpctl debug opens it: the crashing frame" has "$bt" "crash_here"
	fi
fi

# Raw and compressed side by side on a small file system: 100 MiB of data that does not compress (the pattern),
# 200 MiB of tmpfs, KeepFree 64 MiB. The raw core fits; raw and compressed copy together would not.
mount_tmpfs "$T/fs" 200M
write_config "$T/s.conf" "Directory=$T/fs/cores" "KeepFree=64M" "ChunkSize=4M" "MaxUse=100%" "Compress=yes" \
	"StackTrace=no"
use_handler "$T/s.conf"
"$FREEWATCH" "$T/fs" > "$T/low" &
watch=$!
at_exit "kill $watch 2>/dev/null"
crash_z 100 0
kill -TERM "$watch"; wait "$watch"
read -r low samples < "$T/low"
e=$(journal_entry "$CRASH_PID") || fail "no entry"
core=$(only_file "$T/fs/cores") || exit 1
check "free space never below KeepFree with both copies: lowest $low B in $samples samples" test "$low" -ge $((64 * MIB))
check "the copy that did not fit is given up: $(field "$e" CORESINK_COMPRESS)" \
	has_line "$e" "CORESINK_COMPRESS=failed, stored uncompressed: No space left on device"
check "and the complete raw core kept: $core" "$PATCHECK" "$core" 100
check "logged as stored, not truncated" has_line "$e" "CORESINK_RESULT=stored"

# The same under MaxUse: raw and compressed copy count together against it.
rm -f "$T/fs/cores/"core.*
write_config "$T/s.conf" "Directory=$T/fs/cores" "KeepFree=1M" "ChunkSize=4M" "MaxUse=150M" "Compress=yes" \
	"StackTrace=no"
crash_z 100 0
e=$(journal_entry "$CRASH_PID") || fail "no entry"
core=$(only_file "$T/fs/cores") || exit 1
check "MaxUse=150M: 100 MiB raw and its copy do not fit together" has "$e" "CORESINK_COMPRESS=failed"
check "the raw core is kept whole" "$PATCHECK" "$core" 100

# Compressed cores are vacuumed like raw ones: MaxUse makes room for the newest by removing the oldest .zst.
rm -f "$T/fs/cores/"core.*
write_config "$T/s.conf" "Directory=$T/fs/cores" "KeepFree=1M" "ChunkSize=4M" "MaxUse=48M" "Compress=yes" \
	"StackTrace=no" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
# The crasher is let go before its core is compressed: each crash waits for the last one's handler to end, so that
# two handlers do not share the room (then the newest is rightly kept raw, as CI once saw).
first=""
for i in 1 2 3; do
	crash_z 16 0
	handlers_done "$T/s.conf"
	last=$(field "$(journal_entry "$CRASH_PID")" COREDUMP_FILENAME)
	[ -z "$first" ] && first=$last
done
check "the first compressed core was removed for the third" test ! -e "$first"
check "the newest is there, compressed" matches "$last" '\.zst$'
check "and whole" zstd -tq "$last"
check "the directory holds no more than MaxUse: $(du -sb "$T/fs/cores" | cut -f1) B" \
	test "$(du -sB1 "$T/fs/cores" | cut -f1)" -le $((48 * MIB + MIB))
