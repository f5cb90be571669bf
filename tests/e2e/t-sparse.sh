#!/bin/bash
# Sparse cores from real crashes: pages of zeros become holes. A crash with half its pattern's pages zero: the file
# reads back as the process's memory, with holes where the zero pages were, takes about half its size on disk, and
# gdb reads it; no preallocation is left. A crash with 50 idle threads: every thread in gdb, and about the disk of the
# kernel's own core file of the same crash. Sparse=no stores the same crash dense.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern"
command -v gdb >/dev/null || skip "no gdb"
command -v xfs_io >/dev/null || skip "no xfs_io (xfsprogs)"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
disk() { echo $(( $(stat -c %b "$1") * 512 )); }

# Half the pages zero, 64 MiB.
{ ( ulimit -c unlimited; exec "$CRASHER" -z 50 64 ) & p=$!; wait $p; } 2>/dev/null
e=$(journal_entry "$p") || fail "no entry"
core=$(only_file "$T/cores") || exit 1
size=$(file_size "$core"); on_disk=$(disk "$core"); holes=$(field "$e" CORESINK_HOLES)
"$PATCHECK" "$core" 64 50 > "$T/pat"
check "its bytes are the process's memory: $(cat "$T/pat")" test $? -eq 0
check "$on_disk B on disk for $size B: about half (40-60%)" \
	test $((on_disk * 10)) -ge $((size * 4)) -a $((on_disk * 10)) -le $((size * 6))
check "the entry says what it takes: CORESINK_DISK=$(field "$e" CORESINK_DISK), the file $on_disk" test "$(field "$e" CORESINK_DISK)" -eq "$on_disk"
# Left preallocation would be up to a chunk (16 MiB); extent blocks and an xattr block are what may be added.
slack=$((size / 64 + 65536))
check "and no preallocation is left: disk ($on_disk) = size - holes ($((size - holes))) within $slack B of metadata" \
	test $((on_disk - (size - holes))) -le "$slack" -a $((size - holes - on_disk)) -le 0
hole=$(xfs_io -r -c "seek -h 0" "$core" | awk '$1 == "HOLE" { print $2 }')
check "the file has holes inside: SEEK_HOLE finds one at ${hole:-none}, before its end" test "${hole:-$size}" -lt "$size"
bt=$(gdb -batch -ex bt "$CRASHER" "$core" 2>&1)
check "gdb reads it: crash_here on top" has "$bt" "crash_here"

# 50 idle threads, 8 MiB of pattern: against the kernel's own file of the same crash.
rm -rf "$T/cores"
{ ( ulimit -c unlimited; exec "$CRASHER" -T 50 8 ) & p=$!; wait $p; } 2>/dev/null
core=$(only_file "$T/cores") || exit 1
threads=$(gdb -batch -ex "info threads" "$CRASHER" "$core" 2>&1 | grep -cE '^[* ] +[0-9]+ +(Thread|LWP)')
check "gdb shows all 51 threads" test "$threads" -eq 51
mkdir -p "$T/kernel"
printf '%s\n' "$T/kernel/core.%p" > /proc/sys/kernel/core_pattern
{ ( ulimit -c unlimited; exec "$CRASHER" -T 50 8 ) & p=$!; wait $p; } 2>/dev/null
use_handler "$T/c.conf"
kcore=$T/kernel/core.$p
[ -f "$kcore" ] || fail "the kernel wrote no core"
ours=$(disk "$core"); theirs=$(disk "$kcore")
check "threads: $ours B on disk, the kernel's own file $theirs B ($(file_size "$core") B in size): within 25% + 1 MiB" \
	test "$ours" -le $((theirs * 5 / 4 + 1048576))

# Sparse=no: the same kind of crash, stored dense.
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "Sparse=no"
rm -rf "$T/cores"
{ ( ulimit -c unlimited; exec "$CRASHER" -z 50 16 ) & p=$!; wait $p; } 2>/dev/null
core=$(only_file "$T/cores") || exit 1
check "Sparse=no: stored dense ($(disk "$core") B on disk for $(file_size "$core") B)" \
	test "$(disk "$core")" -ge "$(file_size "$core")"
