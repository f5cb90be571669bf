#!/bin/bash
# Encrypted cores (Encrypt=): real crashes stored as age files to two recipients (keys age-keygen made), compressed
# as they come (core.*.zst.age) or not (core.*.age), in pipe and socket mode: Debian's age(1) decrypts them with
# either identity, and zstd gives back the process's memory byte for byte; another identity is refused. The entry
# says to whom, and has the stack trace (made of the stacks read as the dump began). A core cut by MaxCoreSize, or
# by a kill mid-dump, is still a whole age file, with its trace. A fresh loop-mounted ext4 (no discard) holds them:
# after unmount, no page of the crashed processes' memory (both modes') is found anywhere in its image, free blocks
# included, where the same crash without Encrypt= leaves it there. A bad Encrypt= value, or Encrypt= with
# Storage=journal, stores nothing rather than plaintext, and says why. coresinkctl reads them with --identity, and
# reads what age(1) wrote.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it mounts a file system, sets kernel.core_pattern and starts systemd-journald"
command -v age > /dev/null || skip "no age (Debian's age package; make check installs it)"
command -v zstd > /dev/null || skip "no zstd"
scratch
start_journald
for k in 1 2 3; do age-keygen -o "$T/key$k.txt" 2> /dev/null || fail "age-keygen"; done
pub1=$(age-keygen -y "$T/key1.txt") pub2=$(age-keygen -y "$T/key2.txt")
make_fs ext4 "$T/fs" 256
m=$T/fs
conf() { write_config "$T/c.conf" "Directory=$m/cores" "KeepFree=16M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "$@"; }
conf "Compress=yes" "Encrypt=$pub1 $pub2"
use_handler "$T/c.conf"

# crash WHAT MIB PCT: the crasher with MIB MiB, PCT% of its pages zero, crashes under the config; its entry into e,
# its stored file into core, once its handler is done.
crash() {
	crash_z "$2" "$3"
	e=$(journal_entry "$CRASH_PID") || fail "$1: no entry"
	handlers_done "$T/c.conf"
	core=$(field "$e" COREDUMP_FILENAME)
}

# marker_pages IMAGE MIB: how many of the first MIB MiB of pages of the crasher's pattern (4 KiB each) appear in
# IMAGE, at any offset: each page's first 16 bytes are searched for. Once no loop device backs IMAGE (60 s at most):
# a mount still busy is unmounted lazily (release_mount), and written out only when its last user lets it go.
marker_pages() {
	for _ in $(seq 300); do [ -z "$(losetup -j "$1")" ] && break; sleep 0.2; done
	python3 - "$1" "$2" <<'EOF'
import sys
M = (1 << 64) - 1
def word(i):
    z = (0x636f726573696e6b + (i + 1) * 0x9e3779b97f4a7c15) & M
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return z ^ (z >> 31)
img = open(sys.argv[1], 'rb').read()
pages = int(sys.argv[2]) * 256
# Every 64th page (never a zero one: crasher -z 0), as 16 bytes of the pattern.
needles = [word(p * 512).to_bytes(8, 'little') + word(p * 512 + 1).to_bytes(8, 'little') for p in range(1, pages, 64)]
print(sum(1 for n in needles if img.find(n) >= 0), len(needles))
EOF
}

crash "the crash" 32 50
echo "     $(field "$e" CORESINK_COMPRESSED)"
check "stored as core.*.zst.age, the only file: $core" test "${core%.zst.age}" != "$core" -a \
	"$(entries "$m/cores")" = "$(basename "$core")"
check "CORESINK_ENCRYPTED names both recipients" has_line "$e" "CORESINK_ENCRYPTED=age v1, to $pub1 $pub2"
check "age -d with the first identity, then zstd -d: the process's memory" \
	bash -c "age -d -i '$T/key1.txt' '$core' | zstd -dcq > '$T/raw' && '$PATCHECK' '$T/raw' 32 50"
check "a complete ELF core" "$PATCHECK" --elf "$T/raw"
check "CORESINK_SIZE is the core's size" has_line "$e" "CORESINK_SIZE=$(file_size "$T/raw")"
check "the second identity reads it too" bash -c "age -d -i '$T/key2.txt' '$core' | zstd -dcq | cmp -s - '$T/raw'"
check "another identity is refused" bash -c "! age -d -i '$T/key3.txt' '$core' > /dev/null 2>&1"
check "the stack trace, made of the stacks read as the dump began" has "$(entry_message "$CRASH_PID")" \
	"Stack trace of thread $CRASH_PID:"
check "CORESINK_STACKS says the core was compressed and encrypted as it came" \
	matches "$e" "^CORESINK_STACKS=.* made of them in memory \(the stored core is compressed and encrypted as it came\)$"
if command -v gdb > /dev/null; then
	bt=$(gdb -q -batch -ex bt "$CRASHER" "$T/raw" 2>&1)
	check "gdb on the decrypted core: the crashing frame" has "$bt" "crash_here"
fi

# coresinkctl reads it with --identity (into memory), says plainly what is missing without, refuses another; and
# reads what age(1) wrote to a recipient: the same core, re-encrypted by age -r in its place.
ctl() { "$B/coresinkctl" --config "$T/c.conf" --since "$TEST_SINCE" "$@"; }
ctl dump --identity "$T/key1.txt" -o "$T/dumped" "$CRASH_PID" 2> "$T/ctl.err"
check "coresinkctl dump --identity: the core ($(cat "$T/ctl.err"))" cmp -s "$T/dumped" "$T/raw"
msg=$(ctl dump -o "$T/dumped" "$CRASH_PID" 2>&1)
check "coresinkctl dump without --identity says why: $msg" has "$msg" "encrypted (Encrypt=): --identity FILE"
msg=$(ctl dump --identity "$T/key3.txt" -o "$T/dumped" "$CRASH_PID" 2>&1)
check "coresinkctl dump with another identity: $msg" has "$msg" "encrypted to none of the identities"
# An identity kept encrypted (age -p, here to key3 so that no terminal is needed) is read decrypted, from standard
# input as age's -i -; the file itself is named for what it is; identity files add up, as age's.
age -e -r "$(age-keygen -y "$T/key3.txt")" -o "$T/key1.age" "$T/key1.txt" || fail "age -e of the identity"
msg=$(ctl dump --identity "$T/key1.age" -o "$T/dumped" "$CRASH_PID" 2>&1)
check "an encrypted identity file is named so: $msg" has "$msg" "encrypted with age (a protected identity file)"
age -d -i "$T/key3.txt" "$T/key1.age" | ctl dump --identity - -o "$T/dumped" "$CRASH_PID" 2> "$T/ctl.err"
check "age -d KEY | coresinkctl dump --identity -: the core ($(cat "$T/ctl.err"))" cmp -s "$T/dumped" "$T/raw"
ctl dump --identity "$T/key1.txt" --identity "$T/key3.txt" -o "$T/dumped" "$CRASH_PID" 2> "$T/ctl.err"
check "two --identity files: the first one's identity still reads it ($(cat "$T/ctl.err"))" cmp -s "$T/dumped" "$T/raw"
rm -f "$T/key1.age"
check "coresinkctl info: the core as encrypted" has "$(ctl info "$CRASH_PID")" ", encrypted: --identity reads it)"
check "coresinkctl status: to how many recipients" has "$(ctl status)" "to 2 age recipient(s); 0 core(s) stored before it"
if command -v gdb > /dev/null; then
	bt=$(ctl debug --identity "$T/key2.txt" --debugger-arguments="-batch -ex bt" "$CRASH_PID" 2>&1)
	check "coresinkctl debug --identity: gdb on it, the crashing frame" has "$bt" "crash_here"
fi
age -d -i "$T/key1.txt" "$core" | age -r "$pub2" > "$T/by-age" || fail "age -r"
cat "$T/by-age" > "$core"
ctl dump --identity "$T/key2.txt" -o "$T/dumped" "$CRASH_PID" 2> "$T/ctl.err"
check "coresinkctl reads what age -r wrote ($(cat "$T/ctl.err"))" cmp -s "$T/dumped" "$T/raw"
rm -f "$T/raw" "$T/dumped" "$T/by-age"

# Compress=no: core.*.age, the core itself inside.
conf "Compress=no" "Encrypt=$pub1"
crash "Compress=no" 16 0
check "Compress=no: stored as core.*.age: $core" matches "$core" '\.[0-9TZ]+\.age$'
check "Compress=no: age -d gives the core" bash -c "age -d -i '$T/key1.txt' '$core' > '$T/raw' && '$PATCHECK' '$T/raw' 16"
check "Compress=no: the stack trace too" has "$(entry_message "$CRASH_PID")" "Stack trace of thread $CRASH_PID:"
check "Compress=no: CORESINK_STACKS says encrypted as it came, not compressed" \
	matches "$e" "^CORESINK_STACKS=.* \(the stored core is encrypted as it came\)$"
rm -f "$T/raw"

# Core=minimal: encrypted as it comes too (no plaintext minimal core to compress after), with its trace.
conf "Compress=yes" "Encrypt=$pub1" "Core=minimal"
crash "minimal" 16 0
check "Core=minimal: stored as core.*.zst.age: $core" matches "$core" '\.zst\.age$'
check "Core=minimal: age -d and zstd -d give a complete ELF core" \
	bash -c "age -d -i '$T/key1.txt' '$core' | zstd -dcq > '$T/raw' && '$PATCHECK' --elf '$T/raw'"
check "Core=minimal: the stack trace" has "$(entry_message "$CRASH_PID")" "Stack trace of thread $CRASH_PID:"
rm -f "$T/raw"

# Cut by MaxCoreSize: truncated, and still an age file that decrypts, to the cut.
conf "Compress=yes" "Encrypt=$pub1" "MaxCoreSize=8M"
crash "cut" 32 0
check "cut by MaxCoreSize: truncated ($(field "$e" CORESINK_RESULT))" has_line "$e" "CORESINK_RESULT=truncated"
age -d -i "$T/key1.txt" "$core" > "$T/cut.zst" 2> "$T/age.err"
check "cut: age -d reads the whole age file ($(cat "$T/age.err"))" test ! -s "$T/age.err"
check "cut: what zstd gives of it is the core's start ($(zstd -dcq "$T/cut.zst" 2> /dev/null | wc -c) bytes)" \
	test "$(zstd -dcq "$T/cut.zst" 2> /dev/null | wc -c)" -gt $((4 * 1024 * 1024))
check "cut: the stack trace all the same" has "$(entry_message "$CRASH_PID")" "Stack trace of thread $CRASH_PID:"
# Its zstd stream is left open (a cut core never reads as a whole one); coresinkctl, told by the entry that it was
# cut, gives what came, as zstd does.
rc=0
ctl dump --identity "$T/key1.txt" -o "$T/dumped" "$CRASH_PID" 2> "$T/ctl.err" || rc=$?
check "cut: coresinkctl dump gives the core's start, as zstd does (exit $rc $(cat "$T/ctl.err"))" \
	bash -c "test $rc = 0 && zstd -dcq '$T/cut.zst' 2> /dev/null | cmp -s - '$T/dumped' && test -s '$T/dumped'"
check "cut: zstd says the stream ends cut short" bash -c "! zstd -tq '$T/cut.zst' 2> /dev/null"
rm -f "$T/cut.zst" "$T/dumped"

# Killed mid-dump (SIGKILL once the capture holds 48 MiB of a 256 MiB process): truncated, an age file whole to
# its last chunk, the core's start inside, and the trace of all five threads, made of the stacks read early.
conf "Compress=yes" "Encrypt=$pub1" "MaxUse=100%"
killed_at "$m/cores" 48 "$WORKERS" 256
core=$(field "$E" COREDUMP_FILENAME)
check "killed: truncated, cut short ($(field "$E" CORESINK_LIMIT))" all_of_re "$E" "^CORESINK_RESULT=truncated$" \
	"^COREDUMP_TRUNCATED=1$"
age -d -i "$T/key1.txt" "$core" 2> "$T/age.err" | zstd -dcq > "$T/raw" 2> /dev/null
check "killed: age -d reads it whole ($(cat "$T/age.err")), zstd gives $(file_size "$T/raw") bytes of the core" \
	test ! -s "$T/age.err" -a "$(file_size "$T/raw")" -ge $((24 * 1024 * 1024))
check "killed: the entry's trace has the five threads" \
	test "$(grep -c '^Stack trace of thread' "$T/msg")" -eq 5 -a "$(grep -cE '_deep |crash_main ' "$T/msg")" -ge 5
rm -f "$T/raw"

# Socket mode (coresink --serve; the kernel sends the core over a connection): the same age files, compressed as
# they come or not, each traced; their crashes' pages are among those the image scan below finds nowhere.
if have_socket_mode; then
	conf "Compress=yes" "Encrypt=$pub1" "Socket=$T/kernel.socket"
	start_server "$T/c.conf"
	use_socket "$T/c.conf"
	for z in yes no; do
		conf "Compress=$z" "Encrypt=$pub1" "Socket=$T/kernel.socket"
		crash_z 16 0
		e=$(journal_entry "$CRASH_PID") || fail "socket mode, Compress=$z: no entry"
		core=$(field "$e" COREDUMP_FILENAME)
		if [ "$z" = yes ]; then re='\.zst\.age$' unz="zstd -dcq"; else re='[0-9]Z\.age$' unz=cat; fi
		check "socket mode, Compress=$z: stored as an age file: $core" matches "$core" "$re"
		check "socket mode, Compress=$z: age -d gives the process's memory" \
			bash -c "age -d -i '$T/key1.txt' '$core' | $unz > '$T/raw' && '$PATCHECK' '$T/raw' 16"
		check "socket mode, Compress=$z: the stack trace" has "$(entry_message "$CRASH_PID")" \
			"Stack trace of thread $CRASH_PID:"
	done
	rm -f "$T/raw"
	stop_server
	use_handler "$T/c.conf"
fi

# A bad key, Storage=journal: no core, and why.
conf "Compress=yes" "Encrypt=age1notakey"
crash "bad key" 4 0
check "a bad Encrypt=: no core stored, and why: $(field "$e" CORESINK_ERROR)" all_of_re "$e" "^CORESINK_RESULT=failed$" \
	"Encrypt= does not parse"
check "a bad Encrypt=: the entry names no file" test -z "$core"
check "and --check-config says so" bash -c "'$CORESINK' --config '$T/c.conf' --check-config 2>&1 | grep -q 'Encrypt.*no core is stored'"
conf "Compress=yes" "Encrypt=$pub1" "Storage=journal"
crash "journal" 4 0
check "Encrypt= with Storage=journal: no core, and why" all_of_re "$e" "^CORESINK_RESULT=failed$" \
	"Storage=external only"
check "Encrypt= with Storage=journal: the entry holds no core, names no file" none_of "$e" "COREDUMP=" "COREDUMP_FILENAME="
check "nothing was stored for those two" test -z "$(entries "$m/cores" | grep -v '\.age$')"

# The image, every block: no page of the memory of the encrypted crashes (the first, 32 MiB with half its pages
# zero, has the same pattern as the second's 16 MiB: the first 16 MiB's pages are searched).
sync
release_mount "$m"
read -r hits of < <(marker_pages "$m.img" 16)
echo "     with Encrypt=: $hits of $of marker pages found in the image"
check "with Encrypt=: none of the process's pages anywhere in the image" test "$hits" -eq 0
mount -o loop "$m.img" "$m" || fail "mount again"
conf "Compress=no"
# Its entry waited for, and said: CI once found 24 of the 64 pages (under the VM lane's load), and said no more.
crash "without Encrypt=" 16 0
echo "     without Encrypt=: $(field "$e" CORESINK_RESULT), $(field "$e" CORESINK_SIZE) bytes in $core"
sync
release_mount "$m"
read -r hits of < <(marker_pages "$m.img" 16)
echo "     without Encrypt=: $hits of $of marker pages found in the image"
check "without Encrypt=: the same crash's pages are there ($hits of $of): the scan finds them" test "$hits" -eq "$of"
mount -o loop "$m.img" "$m" || fail "mount at the end"
conf "Compress=yes" "Encrypt=$pub1"
check "--check-config warns of the plaintext core stored before Encrypt=" \
	bash -c "'$CORESINK' --config '$T/c.conf' --check-config 2>&1 | grep -q 'stored before Encrypt= and are in plaintext'"
