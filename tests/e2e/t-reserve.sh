#!/bin/bash
# ENOSPC for real: a crash larger than the room on a small tmpfs. Free space never drops below KeepFree during
# the capture (sampled every 100 us), the truncated core is kept and logged as truncated; with no room at all,
# nothing is stored and the crash is still logged (in the journal where a journald runs, else the kernel log).
# tier: fast (make check, and make check-all)
# journald: both (run again with a journald the test did not start: what it checks depends on whose it is)
. "$(dirname "$0")/lib.sh"
need_root "it mounts a tmpfs and sets kernel.core_pattern"
scratch
mount_tmpfs "$T/fs" 48M
reserve=$((16 * 1024 * 1024))
write_config "$T/c.conf" "Directory=$T/fs/cores" "KeepFree=16M" "ChunkSize=4M" "MaxUse=100%"
use_handler "$T/c.conf"

"$FREEWATCH" "$T/fs" > "$T/low" &
watch=$!
at_exit "kill $watch 2>/dev/null"
kmsg_mark
crash 64
kill -TERM "$watch"; wait "$watch"
read -r low samples < "$T/low"
check "the crasher died with a core" test "$CRASH_STATUS" -eq 139
check "free space never below KeepFree: lowest $low B of $reserve B in $samples samples" test "$low" -ge "$reserve"
core=$(only_file "$T/fs/cores") || exit 1
size=$(file_size "$core")
check "the core was cut short ($size B)" test "$size" -lt $((64 * 1024 * 1024))
check "and filled the room above the reserve (> 24 MiB)" test "$size" -gt $((24 * 1024 * 1024))
"$PATCHECK" "$core" 64 > "$T/pat"; pat=$?
check "what was kept is the process's memory, cut: $(cat "$T/pat")" test "$pat" -eq 1
# The program headers were rewritten for the stacks kept in its last bytes (EarlyStacks=): they promise what the
# file holds, the segment the cut went through as far as it got, and no more.
check "the ELF headers promise what the file holds: $("$PATCHECK" --elf "$core")" "$PATCHECK" --elf "$core"
log=$(crash_log "$CRASH_PID")
check "logged as truncated" has "$log" "Process $CRASH_PID (crasher) of user 0 dumped core (SIGSEGV); truncated to $size bytes"

# No room at all: nothing is stored, nothing temporary is left, the crash is still logged.
rm -f "$core"
# 48 MiB - 33 MiB leaves less than the 16 MiB reserve.
dd if=/dev/zero of="$T/fs/filler" bs=1M count=33 status=none
kmsg_mark
crash 8
check "nothing stored when the reserve is already reached" test -z "$(entries "$T/fs/cores")"
log=$(crash_log "$CRASH_PID")
check "and the crash is logged as not stored" has "$log" "Process $CRASH_PID (crasher) of user 0 dumped core (SIGSEGV); not stored"
