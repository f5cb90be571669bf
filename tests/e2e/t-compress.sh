#!/bin/bash
# Compressed cores (Compress=yes): a real crash is stored as a zstd file written once, as the core comes (no raw
# copy first), that decompresses to the process's memory; coredumpctl dump returns its bytes and coredumpctl debug
# opens it. Its stack trace is made of the threads' stacks read as the dump began (a core made of them in memory):
# the same frames as gdb on the whole core, for every one of 150 threads. Memory that does not compress goes raw
# in frames of raw blocks (a chunk that did not shrink, and seven after it, stored), and the file is no larger than
# the core. The reserve
# holds with one copy: a core that fits raw fits compressed. Old compressed cores are vacuumed like raw ones.
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

# Incompressible memory (the pattern, no zero page): a zstd stream still, its chunks stored (raw blocks) once one
# did not shrink, no larger than the core.
crash_z 96 0
e=$(journal_entry "$CRASH_PID") || fail "no entry"
handlers_done "$T/c.conf"
core=$(field "$e" COREDUMP_FILENAME)
echo "     incompressible: $(field "$e" CORESINK_COMPRESSED)"
check "incompressible: stored as .zst, the only file" test "$(entries "$T/cores")" = "$(basename "$core")" -a \
	"${core%.zst}" != "$core"
check "incompressible: a valid zstd frame" zstd -tq "$core"
zstd -dcq "$core" > "$T/raw" || fail "incompressible: zstd -d"
check "incompressible: which is the process's memory" "$PATCHECK" "$T/raw" 96
check "incompressible: the file no larger than the core and 0.1%: $(file_size "$core") B for $(file_size "$T/raw")" \
	test "$(file_size "$core")" -le $(( $(file_size "$T/raw") + $(file_size "$T/raw") / 1000 ))
check "incompressible: chunks stored (raw blocks) as they did not shrink" \
	matches "$e" '^CORESINK_COMPRESSED=zstd as it came, [0-9]+ bytes, level 1; [1-9][0-9]* of [0-9]+ chunks stored .*a chunk did not shrink [1-9]'
rm -f "$T"/cores/core.* "$T/raw"

crash_z 32 50
e=$(journal_entry "$CRASH_PID") || fail "no entry"
handlers_done "$T/c.conf"
core=$(field "$e" COREDUMP_FILENAME)
check "stored as a .zst file: $core" matches "$core" '\.zst$'
check "the only file in the directory (no raw or temporary one left)" test "$(entries "$T/cores")" = "$(basename "$core")"
check "a valid zstd frame, checksum included" zstd -tq "$core"
zstd -dcq "$core" > "$T/raw" || fail "zstd -d"
check "which decompresses to the process's memory" "$PATCHECK" "$T/raw" 32 50
check "a complete ELF core" "$PATCHECK" --elf "$T/raw"
check "CORESINK_SIZE is the core's size" has_line "$e" "CORESINK_SIZE=$(file_size "$T/raw")"
check "CORESINK_DISK is what the .zst takes" has_line "$e" "CORESINK_DISK=$(( $(stat -c %b "$core") * 512 ))"
check "CORESINK_COMPRESSED: as it came, its size: $(field "$e" CORESINK_COMPRESSED)" \
	has "$(field "$e" CORESINK_COMPRESSED)" "zstd as it came, $(file_size "$core") bytes, level 1"
# The pattern does not compress (it is random-like); the zero pages do, to nothing.
check "the zero half compressed away: $(file_size "$core") B for 16 MiB of data" test "$(file_size "$core")" -lt $((18 * MIB))
check "the stack trace, from the stacks read as the dump began" has "$(entry_message "$CRASH_PID")" \
	"Stack trace of thread $CRASH_PID:"
check "CORESINK_STACKS says the trace's core was made of them: $(field "$e" CORESINK_STACKS)" \
	matches "$e" "^CORESINK_STACKS=1 threads' stacks read as the dump began, .*; the stack trace's core: [0-9]+ bytes made of them in memory"
check "a signature from that trace" matches "$e" '^CORESINK_SIGNATURE=[0-9a-f]{16}'
if command -v coredumpctl >/dev/null; then
	cdctl dump "$CRASH_PID" -o "$T/dumped" >/dev/null 2>&1
	check "coredumpctl dump returns the core's bytes" cmp -s "$T/dumped" "$T/raw"
	if command -v gdb >/dev/null; then
		bt=$(cdctl debug "$CRASH_PID" --debugger-arguments="-batch -ex bt" 2>&1)
		check "coredumpctl debug opens it: the crashing frame" has "$bt" "crash_here"
	fi
fi
rm -f "$T"/cores/core.* "$T/raw" "$T/dumped"

# 150 threads: the trace made of the stacks has every one, with the frames of the trace a raw core of the same
# program gets (Compress=no), and gdb on the decompressed core shows what it shows on that raw one.
if command -v gdb >/dev/null; then
	write_config "$T/raw.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
		"Compress=no"
	use_handler "$T/raw.conf"
	crash_run "$WORKERS" -n 145 16 > /dev/null
	e=$(journal_entry "$CRASH_PID") || fail "150 threads, raw: no entry"
	handlers_done "$T/raw.conf"
	ref_frames=$(gdb_threads "$WORKERS" "$(field "$e" COREDUMP_FILENAME)")
	ref_trace=$(entry_message "$CRASH_PID" | trace_blocks)
	rm -f "$T"/cores/core.*
	use_handler "$T/c.conf"
	crash_run "$WORKERS" -n 145 16 > /dev/null
	e=$(journal_entry "$CRASH_PID") || fail "150 threads: no entry"
	handlers_done "$T/c.conf"
	zstd -dcq "$(field "$e" COREDUMP_FILENAME)" > "$T/raw" || fail "150 threads: zstd -d"
	frames=$(gdb_threads "$WORKERS" "$T/raw")
	trace=$(entry_message "$CRASH_PID" | trace_blocks)
	check "150 threads: the raw core's trace has all 150" test "$(printf '%s\n' "$ref_trace" | grep -c '^Stack')" -eq 150
	check "150 threads: gdb on the decompressed core shows the raw one's frames" test "$frames" = "$ref_frames"
	[ "$trace" = "$ref_trace" ] || diff <(printf '%s\n' "$ref_trace") <(printf '%s\n' "$trace") | head -n 20
	check "150 threads: the entry's trace, made of the stacks, names the raw core's frames, thread by thread" \
		test "$trace" = "$ref_trace"
	rm -f "$T"/cores/core.* "$T/raw"
fi

# One write on a small file system: 100 MiB of data that does not compress (the pattern), 200 MiB of tmpfs,
# KeepFree 64 MiB: a raw copy and a compressed one would not fit together; the one compressed as it came does.
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
check "free space never below KeepFree: lowest $low B in $samples samples" test "$low" -ge $((64 * MIB))
check "stored whole, compressed as it came: $core" all_of_re "$e" "^CORESINK_RESULT=stored$" \
	"^CORESINK_COMPRESSED=zstd as it came, "
zstd -dcq "$core" > "$T/raw" || fail "zstd -d"
check "and the process's memory" "$PATCHECK" "$T/raw" 100
rm -f "$T/raw"

# The same under MaxUse=150M: the 100 MiB core fits once.
rm -f "$T/fs/cores/"core.*
write_config "$T/s.conf" "Directory=$T/fs/cores" "KeepFree=1M" "ChunkSize=4M" "MaxUse=150M" "Compress=yes" \
	"StackTrace=no"
crash_z 100 0
e=$(journal_entry "$CRASH_PID") || fail "no entry"
core=$(only_file "$T/fs/cores") || exit 1
check "MaxUse=150M: the 100 MiB core stored whole, compressed" all_of_re "$e" "^CORESINK_RESULT=stored$" \
	"^CORESINK_COMPRESSED=zstd as it came, "
zstd -dcq "$core" > "$T/raw" || fail "zstd -d"
check "and the process's memory" "$PATCHECK" "$T/raw" 100
rm -f "$T/raw"

# Compressed cores are vacuumed like raw ones: MaxUse makes room for the newest by removing the oldest .zst.
rm -f "$T/fs/cores/"core.*
write_config "$T/s.conf" "Directory=$T/fs/cores" "KeepFree=1M" "ChunkSize=4M" "MaxUse=48M" "Compress=yes" \
	"StackTrace=no" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
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
