#!/bin/bash
# Preallocation on a file system without fallocate: ext2 (loop-mounted) answers EOPNOTSUPP. The handler tries
# fallocate once, then, for a dense core, extends with ftruncate per chunk (strace shows the calls); a sparse one
# just writes. Identical bytes are stored, without a preallocated byte beyond the end.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it loop-mounts an ext2 image"
command -v mkfs.ext2 >/dev/null || skip "no mkfs.ext2 (e2fsprogs)"
command -v strace >/dev/null || skip "no strace"
scratch
truncate -s 256M "$T/ext2.img"
mkfs.ext2 -q -F "$T/ext2.img" || fail "mkfs.ext2"
mkdir "$T/mnt"
mount -o loop "$T/ext2.img" "$T/mnt" || skip "cannot loop-mount (no loop devices?)"
at_exit "umount '$T/mnt'"
head -c $((40 * 1024 * 1024 + 99)) /dev/urandom > "$T/in"

for variant in splice:no readwrite:no readwrite:yes; do
	strategy=${variant%:*} sparse=${variant#*:}
	rm -rf "$T/mnt/cores"
	write_config "$T/c.conf" "Directory=$T/mnt/cores" "KeepFree=8M" "MaxUse=100%" "ChunkSize=4M" "Strategy=$strategy" \
		"Sparse=$sparse"
	strace -f -e trace=fallocate,ftruncate -o "$T/trace" \
		"$CORESINK" --config "$T/c.conf" $$ 0 0 11 0 "$UNLIMITED" host ext2test 1 "" < "$T/in"
	check "$variant: stored" test $? -eq 0
	core=$(only_file "$T/mnt/cores") || exit 1
	check "$variant: identical bytes" cmp -s "$core" "$T/in"
	check "$variant: fallocate refused once with EOPNOTSUPP" \
		test "$(grep -c 'fallocate(.*EOPNOTSUPP' "$T/trace")" -eq 1
	if [ "$sparse" = no ]; then
		check "$variant: ftruncate extended the file per chunk" \
			test "$(grep -c 'ftruncate(' "$T/trace")" -ge 10
	fi
	check "$variant: no block allocated beyond the end" \
		test $(( $(stat -c %b "$core") * 512 )) -le $(( $(stat -c %s "$core") + 1024 * 1024 ))
done
