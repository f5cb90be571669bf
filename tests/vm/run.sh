#!/bin/bash
# run.sh: the VM tier (make check-vm). For each of Debian 12 (Linux 6.1, systemd 252), 13 (6.12, 257) and unstable
# (its newest kernel, 262 or later): a disk image built by mmdebstrap from the release's own packages, with its own
# kernel, initramfs, systemd and systemd-coredump, booted under qemu (KVM where it runs a stock kernel, TCG
# otherwise: probed, and said). In each, tests/vm/guest.sh runs at the end of every boot, from a read-only 9p share
# of this tree, and writes its lines to a second share; the stages are boots of the same disk:
#   1. the package of this tree installed with apt: the mode it chose and why; an "@@" pattern of coresink's left
#      where the kernel cannot serve it, replaced by the socket's start and by the postinst; crashes in each mode the
#      kernel has, TEST-87's coredumpctl checks as root and as the user; the fallbacks the kernel forces;
#   2. a reboot: kernel.core_pattern is coresink's, a crash during early boot and one after are stored; apt remove
#      gives systemd-coredump's pattern back;
#   3. (systemd 262 on Linux 6.19 or later) a reboot after the removal: systemd-coredumpd serves "@@" again.
# A VM that does not boot, a mirror that does not answer, a kernel that moved: the tier says which and fails.
# The last boot of unstable also records the power cuts (tests/vm/guest.sh's powercut_record: a short list of file
# systems and modes through dm-log-writes; make check-powercut's own boot, every pair), replayed here at the end
# (replay_all, the check of make check-powercut): each release is booted once for both. The images are built side
# by side before the first boot.
# One row per release goes to $B/vm.md. CORESINK_VM_RELEASES picks the releases (default: bookworm trixie sid).
# With --record, the recordings are left for a later --replay (make check-all: the replay crashes processes under
# this host's kernel.core_pattern, which the end-to-end tests must have to themselves); --replay replays them.
# With --bench (make bench-vm), instead: one boot of a fresh unstable image with 4 GiB, where coresink-bench --crash
# compares coresink's socket mode with systemd-coredumpd (guest.sh's stagebench); its tables go to $B/vm/out/.
# Images are built once per run and kept in $B/vm/ (rebuilt when their recipe changes or a day has passed).
export B=${1:-${B:-build}}
BENCH=${2:-}
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/coredumpctl.sh"
need_root "it builds disk images and boots them"
for tool in mmdebstrap qemu-system-x86_64 mkfs.ext4; do
	command -v "$tool" > /dev/null || fail "no $tool: make check-vm installs it (scripts/install-deps.sh --vm)"
done
[ "$(os_release ID)" = debian ] || skip "the images are built from Debian's packages with the host's mmdebstrap: not Debian"
VM=$B/vm
mkdir -p "$VM/out"
scratch
TABLE=$B/vm.md
PKGS=systemd,systemd-sysv,systemd-coredump,udev,dbus,kmod,initramfs-tools,e2fsprogs,linux-image-amd64,gdb,acl,zstd,procps,jq,util-linux,apt,libdw1,libelf1,libdebuginfod1,libzstd1,libacl1,libseccomp2,libsqlite3-0,libjson-c5,debuginfod,rclone,iproute2,dmsetup,xfsprogs,btrfs-progs,podman,catatonit,uidmap,dbus-user-session,containerd,python3-grpcio,python3-protobuf
# A boot's bound, against a guest that hangs: the first stage of unstable's (boot, then every check but the power
# cuts, under TCG) took past 420 s once on this shared machine (2026-11-29: killed in its pods checks, after 92 s of
# boot against 79 s the run before) and 542 s in make check-all's run 53. (In run 55 it ran beside bookworm's
# guest, two chains of boots tried and undone, and was killed at 900 s: two CPUs run two guests and the other lanes
# no faster.) A passing run takes no longer for it.
BOOT_TIMEOUT=${CORESINK_VM_BOOT_TIMEOUT:-900}

# The guests' initramfs, set before the kernel's package makes it: the modules that mount a virtio disk's ext4 root
# (the rest load from the root), not "most" of them, and gzip, not zstd -19. mkinitramfs in Debian 12's root, median
# of 3 on an idle machine: 67.0 s and 69.6 CPU-s for 30.8 MB, against 5.5 s and 6.0 CPU-s for 7.1 MB (beside a CI
# run: 169 s against 11 s); each guest mounts its root from it. The files are no package's (conf.d, modules.d).
INITRAMFS_HOOK='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d" &&
	printf "MODULES=list\nCOMPRESS=gzip\n" > "$1/etc/initramfs-tools/conf.d/coresink-vm" &&
	printf "virtio_pci\nvirtio_blk\next4\ncrc32c_generic\n" > "$1/usr/share/initramfs-tools/modules.d/coresink-vm"'
# The day the images are dated by, taken once: a run that goes past midnight built unstable's and trixie's images side
# by side before 00:00 and again before their boots after it (make check-all's run 92: 312 and 318 s more).
IMAGE_DAY=$(date +%F)
# image REL: $VM/REL/base.img (ext4, the whole root), vmlinuz and initrd, built unless this recipe made them on the
# run's day.
image() {
	local rel=$1 dir=$VM/$1 stamp t0 root
	stamp="$(printf '%s\n' "$PKGS" "$INITRAMFS_HOOK" "$(declare -f image customize)" | cksum | cut -d' ' -f1) $IMAGE_DAY"
	[ -s "$dir/base.img" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ] && return 0
	t0=$(date +%s)
	rm -rf "$dir" && mkdir -p "$dir" || fail "$dir"
	root=$dir/root
	# Straight into a directory (no tar written and read back), without the documentation no check reads: the images
	# are built in every run of make check-all, beside its other work (470-820 s each on 2026-11-29, CPU-bound beside
	# scan-build; mmdebstrap's eatmydata hook was tried and gained nothing measurable, 801/502/507 s against
	# 752/469/471).
	mmdebstrap --variant=minbase --format=directory --aptopt='Acquire::Check-Valid-Until "false"' \
		--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
		--essential-hook="$INITRAMFS_HOOK" --include="$PKGS" "$rel" "$root" > "$dir/mmdebstrap.log" 2>&1 ||
		fail "$rel: mmdebstrap could not build the root (a mirror that does not answer?): $(tail -n 1 "$dir/mmdebstrap.log")"
	customize "$root"
	# The release's own kernel and the initramfs its initramfs-tools made for it (virtio and ext4 are modules).
	cp "$(ls "$root"/boot/vmlinuz-* "$root"/usr/lib/modules/*/vmlinuz 2>/dev/null | sort -V | tail -n 1)" "$dir/vmlinuz" &&
		cp "$(ls "$root"/boot/initrd.img-* 2>/dev/null | sort -V | tail -n 1)" "$dir/initrd" ||
		fail "$rel: no kernel or initramfs in the root (has the release's kernel package moved?): $(ls "$root/boot")"
	mkfs.ext4 -q -L root -d "$root" "$dir/base.img" 4G || fail "$rel: mkfs.ext4 -d"
	rm -rf "$root"
	echo "$stamp" > "$dir/stamp"
	ok "$rel: image built in $(( $(date +%s) - t0 )) s"
}

# customize ROOT: what the guest needs beyond the release's packages: a user, a persistent journal, TEST-87's
# programs, and the units that run guest.sh at the end of each boot and crash a program early in the second.
customize() {
	local root=$1
	echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" > "$root/etc/fstab"
	echo "cs-vm" > "$root/etc/hostname"
	chroot "$root" useradd -m -u 1000 testuser || fail "useradd"
	mkdir -p "$root/var/log/journal" "$root/usr/local/sbin"
	make_dump "$root"
	for b in test-dump test-usr-dump early-dump later-dump; do cp "$root/usr/bin/sleep" "$root/usr/local/bin/$b"; done
	cat > "$root/usr/local/sbin/vmtest" <<'EOS'
#!/bin/sh
# Runs this boot's stage of the VM tier from the host's shares, then powers off (qemu then exits).
stage=$(sed -n 's/.*vmtest.stage=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
rel=$(sed -n 's/.*vmtest.rel=\([a-z]*\).*/\1/p' /proc/cmdline)
mkdir -p /src /out
# share TAG DIR [OPTS]: the host's share, asked again for 20 s: its virtio device may be bound after this unit starts
# (unstable's third boot under TCG once found no channel "src": mount said ENOENT).
share() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		mount -t 9p -o "trans=virtio,version=9p2000.L$3" "$1" "$2" 2>/dev/null && return 0
		modprobe 9pnet_virtio 2>/dev/null
		sleep 2
	done
	mount -t 9p -o "trans=virtio,version=9p2000.L$3" "$1" "$2"
}
share src /src ,ro && share out /out &&
	bash /src/tests/vm/guest.sh "$stage" "$rel" > "/out/$rel-$stage.log" 2>&1
sync
systemctl poweroff
EOS
	chmod 0755 "$root/usr/local/sbin/vmtest"
	cat > "$root/etc/systemd/system/vmtest.service" <<'EOS'
[Unit]
Description=coresink VM tier: this boot's stage
After=multi-user.target
ConditionKernelCommandLine=vmtest.stage

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/vmtest
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
EOS
	# A crash during early boot: before sysinit.target, once the drop-in is applied and the core directory made.
	cat > "$root/etc/systemd/system/vmtest-early.service" <<'EOS'
[Unit]
Description=coresink VM tier: a crash during early boot
DefaultDependencies=no
After=systemd-sysctl.service systemd-tmpfiles-setup.service systemd-journald.socket local-fs.target
Before=sysinit.target
ConditionKernelCommandLine=vmtest.early=1

[Service]
Type=oneshot
ExecStart=/usr/local/bin/make-dump /usr/local/bin/early-dump SIGSEGV

[Install]
WantedBy=sysinit.target
EOS
	chroot "$root" systemctl enable vmtest.service vmtest-early.service > /dev/null 2>&1 || fail "enabling the test units"
	# containerd only in the boot whose checks start it (cri_checks): a boot's time under TCG is the tier's.
	chroot "$root" systemctl disable containerd.service > /dev/null 2>&1
	# systemd 262's socket server: its preset enables it, which mmdebstrap's root leaves undone.
	if [ -e "$root/usr/lib/systemd/system/systemd-coredumpd.service" ]; then
		chroot "$root" systemctl preset systemd-coredumpd.service systemd-coredumpd.socket \
			systemd-coredump-register.service > /dev/null 2>&1
	fi
}

# probe_accel VMLINUZ: "kvm" where KVM boots a stock kernel here (to its panic for want of a root), else "tcg".
probe_accel() {
	local log=$T/kvm-probe.log
	[ -w /dev/kvm ] || { echo tcg; return; }
	timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 -display none -no-reboot -serial "file:$log" \
		-kernel "$1" -append "console=ttyS0 panic=-1" > "$T/kvm-probe.out" 2>&1
	grep -q "Kernel panic" "$log" 2>/dev/null && echo kvm || echo tcg
}

# boot REL STAGE [APPEND]: boots REL's disk for STAGE; 0 once the guest wrote its stage's last line.
boot() {
	local rel=$1 stage=$2 extra=${3:-} cpu
	# Emulated (TCG), what the guest's CPU has costs the whole run (make check-all's two CPUs are shared with the
	# host lane): -cpu max gives 5-level paging and AVX, which TCG walks and emulates slowly, and the kernel's
	# mitigations of CPU flaws flush and fence around every system call. Nehalem (x86-64-v2, which every release
	# runs) without them took half the time to fork and exec, a fifth to pipe 256 MiB (2026-11-29, bookworm's guest).
	# Nothing under test depends on either. The guest's flushes reach the disk image's page cache only (cache=unsafe):
	# a sync in the guest (coresink syncs every core, dpkg every file) is no wait on this host's disk; the power cuts
	# are recorded inside the guest (dm-log-writes), whose flushes are its own.
	# Emulated, one vCPU and no zeroing of every page the kernel hands out (init_on_alloc, on in Debian's kernels: a
	# hardening default, emulated a store at a time): make check-all's lanes keep both host CPUs busy, and a second
	# vCPU spent host CPU waiting on the first (its spinlocks, its TLB shootdowns) whenever the host ran something
	# else on the first's thread. Bookworm's guest, stages 1 and 2 beside two busy loops (2026-11-30, one run each):
	# qemu took 372 CPU-s with -smp 2, 291 with -smp 1, 324 with -smp 1 and init_on_alloc=0, in about the same time
	# (475, 483, 430 s: one run's noise is larger than the zeroing's share); 256 MiB through a pipe in the guest, idle
	# host: 1.0-1.3 s against 0.66-0.95 s without the zeroing. Nothing under test depends on either: what a process
	# or a file can see, the kernel zeroes regardless.
	# The bench keeps two vCPUs: the crash and its handler each on one, as on the machines it speaks for.
	local smp=2 tcg=""
	if [ "$ACCEL" = kvm ]; then
		cpu=host
	else
		cpu=Nehalem tcg=init_on_alloc=0
		[ "$stage" = bench ] || smp=1
	fi
	rm -f "$VM/out/$rel-$stage.log"
	timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel "$ACCEL" -cpu "$cpu" -m "${VM_MEMORY:-2048}" -smp "$smp" -display none -no-reboot \
		-serial "file:$VM/$rel/serial-$stage.log" -nic none -device virtio-rng-pci \
		-kernel "$VM/$rel/vmlinuz" -initrd "$VM/$rel/initrd" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 quiet mitigations=off $tcg vmtest.stage=$stage vmtest.rel=$rel $extra" \
		-drive "file=$VM/$rel/disk.img,format=raw,if=virtio,cache=unsafe" \
		-virtfs "local,path=$TOP,mount_tag=src,security_model=none,readonly=on" \
		-virtfs "local,path=$VM/out,mount_tag=out,security_model=none" > "$VM/$rel/qemu-$stage.log" 2>&1
	grep -q "^done $stage" "$VM/out/$rel-$stage.log" 2>/dev/null
}

# stage REL STAGE [APPEND]: one boot, its lines passed on; fails the tier with the reason where it did not finish.
stage() {
	local rel=$1 stage=$2 t0 rc
	t0=$(date +%s)
	boot "$@"
	rc=$?
	# The guest's kernel dying before any of the test ran (seen once in 7.2 under TCG: an int3 of its own text
	# patching, 1.3 s into the boot) says nothing of coresink: booted once more, and said. Never after the test began.
	if [ $rc -ne 0 ] && [ ! -s "$VM/out/$rel-$stage.log" ] &&
		grep -q "Kernel panic" "$VM/$rel/serial-$stage.log" 2>/dev/null; then
		cp "$VM/$rel/serial-$stage.log" "$VM/$rel/serial-$stage-panic.log"
		echo "note $rel: boot $stage: the guest's kernel panicked before the test ($(grep -m1 -E 'Oops|BUG' \
			"$VM/$rel/serial-$stage.log" | sed 's/^\[[ 0-9.]*\] //'), $(grep -m1 'RIP:' "$VM/$rel/serial-$stage.log" |
			sed 's/^\[[ 0-9.]*\] //'); $VM/$rel/serial-$stage-panic.log): booted once more"
		boot "$@"
		rc=$?
	fi
	grep -E '^(ok|FAIL|SKIP|fact) ' "$VM/out/$rel-$stage.log" 2>/dev/null | sed 's/^/  /'
	if [ $rc -ne 0 ]; then
		if [ ! -s "$VM/out/$rel-$stage.log" ]; then
			tail -n 15 "$VM/$rel/serial-$stage.log" 2>/dev/null | sed 's/^/     serial: /'
			fail "$rel: boot $stage did not reach the test (not booted within ${BOOT_TIMEOUT} s, or its shares not mounted)"
		fi
		fail "$rel: stage $stage did not finish: $(grep -m1 '^FAIL' "$VM/out/$rel-$stage.log" || tail -n 1 "$VM/out/$rel-$stage.log")"
	fi
	ok "$rel: stage $stage passed in $(( $(date +%s) - t0 )) s (boot and checks, $ACCEL)"
}

# fact REL KEY: a fact the guest wrote ("fact KEY VALUE") in any stage.
fact() { sed -n "s/^fact $2 //p" "$VM/out/$1"-*.log 2>/dev/null | tail -n 1; }

release() {
	local rel=$1 t0 checks last=2 pc="" bt=$BOOT_TIMEOUT
	t0=$(date +%s)
	image "$rel"
	[ -n "${ACCEL:-}" ] || { ACCEL=$(probe_accel "$VM/$rel/vmlinuz"); ok "accelerator: $ACCEL$( [ "$ACCEL" = tcg ] &&
		echo " (KVM did not boot a stock kernel here: $(grep -m1 -iE 'error|internal' "$T/kvm-probe.out" 2>/dev/null || echo "no /dev/kvm or no output"))")"; }
	cp --sparse=always "$VM/$rel/base.img" "$VM/$rel/disk.img" || fail "$rel: copying the image"
	stage "$rel" 1
	[ "$(fact "$rel" coredumpd)" = yes ] && last=3
	# The power cuts are recorded in unstable's last boot (a kernel with dm-log-writes, xfs and btrfs as modules).
	if [ "$rel" = sid ] && [ -n "$RECORD" ]; then
		[ -x "$B/planted/coresink" ] && [ -x "$B/replaylog" ] || fail "the VM tier builds $B/planted and replaylog first"
		rm -rf "$VM/out/powercut"
		pc=vmtest.powercut=short bt=3600
	fi
	if [ $last = 3 ]; then
		stage "$rel" 2 vmtest.early=1
		BOOT_TIMEOUT=$bt stage "$rel" 3 "$pc"
	else
		BOOT_TIMEOUT=$bt stage "$rel" 2 "vmtest.early=1${pc:+ $pc}"
	fi
	rm -f "$VM/$rel/disk.img"
	checks=$(cat "$VM/out/$rel"-*.log | grep -c '^ok ')
	printf '| %s | %s | %s | %s | %s | %s | %s s | %s s |\n' "$rel" "$(fact "$rel" kernel)" "$(fact "$rel" systemd)" \
		"$(fact "$rel" mode)" "$(fact "$rel" pidfd)" "$checks" "$(fact "$rel" boot)" "$(( $(date +%s) - t0 ))" >> "$TABLE"
}

# bench: the comparison with systemd-coredumpd, in one boot of a fresh unstable image.
bench() {
	image sid
	ACCEL=$(probe_accel "$VM/sid/vmlinuz")
	cp --sparse=always "$VM/sid/base.img" "$VM/sid/disk.img" || fail "sid: copying the image"
	rm -f "$VM"/out/bench-*
	VM_MEMORY=4096 BOOT_TIMEOUT=3600 stage sid bench
	rm -f "$VM/sid/disk.img"
	for f in "$VM"/out/bench-*.txt; do echo "== $f"; cat "$f"; done
	exit 0
}
# payload: what the guests crash for the features that need a server (guest.sh's door_checks): a stripped program
# and its stripped library, their debug files beside them for a debuginfod inside the guest. Built here (Debian 12's
# glibc: every release runs it), into the tree's share.
payload() {
	local p=$B/vm/payload
	rm -rf "$p" && mkdir -p "$p" || fail "$p"
	stripped_pair "$p" door-dump /usr/local/lib/door
	# fetch_unconfined_checks' program: it waits, and the signal it is sent makes it fault in its own code, stripped,
	# whose debug info no one serves: the fetch step is needed whatever the release's libc and unwinder make of a
	# copy of sleep (on unstable, whose trace of one stops in libc, none was).
	printf '#include <signal.h>\n#include <unistd.h>\nstatic void crash(int sig) { signal(sig, SIG_DFL); *(volatile int *)0 = 1; }\nint main(void) { signal(SIGSEGV, crash); for (;;) pause(); }\n' > "$T/wait.c"
	cc -O1 -o "$p/fetch-dump" "$T/wait.c" && strip --strip-all "$p/fetch-dump" || fail "building fetch-dump"
	# pods_checks' image: a root file system of one static program that waits, then faults at SIGUSR1.
	printf '#include <signal.h>\n#include <unistd.h>\nstatic void crash(int sig) { (void)sig; *(volatile int *)0 = 1; }\nint main(void) { signal(SIGUSR1, crash); for (;;) pause(); }\n' > "$T/pod.c"
	mkdir -p "$T/podroot" && cc -static -O1 -o "$T/podroot/pod-dump" "$T/pod.c" && tar -C "$T/podroot" -cf "$p/pod.tar" . ||
		fail "building the pod's image (cc -static: libc6-dev's libc.a)"
	# cri_checks' client: tests/helpers/cri.proto made Python here, as t-pods makes it. Not in the guests: their
	# grpc_tools (1.14) needs pkg_resources, which none of them has; the code protoc 3.21 writes runs on every
	# release's python3-protobuf (3.21 in all three).
	mkdir -p "$p/cri" && /usr/bin/python3 -m grpc_tools.protoc -I"$TOP/tests/helpers" --python_out="$p/cri" \
		--grpc_python_out="$p/cri" "$TOP/tests/helpers/cri.proto" || fail "cri.proto: no grpc_tools (python3-grpc-tools)"
}
# powercut (make check-powercut): one boot of unstable records each file system and mode through dm-log-writes
# (guest.sh's stagepowercut); here each log is replayed onto an image (replaylog), and at every flush, FUA and mark
# the image is checked as a power cut at that moment would leave it (pcheck.sh). Every point of the tree's coresink
# must pass; the planted bug (a build that names a core before its data is synced) must be caught. One row per
# recording goes to $B/powercut.md.
replay() {
	local log=$1 name out points broken w t0
	t0=$(date +%s)
	name=${log##*/} name=${name%.log}
	out=$VM/out/powercut/$name.replay
	# The work directory's name short: the pattern pcheck sets names the config in it, and the kernel takes 127 bytes
	# of a pattern at most (a recording's name as the directory's made ext4-socket-encrypt's 128 here).
	w=$T/ram/$(printf '%s' "$name" | cksum | cut -d' ' -f1)
	rm -f "$T/ram/$name.img" && truncate -s 320M "$T/ram/$name.img" && rm -rf "$w" && mkdir -p "$w" ||
		fail "$name: the image"
	"$B/replaylog" --from mkfs "$log" "$T/ram/$name.img" bash "$TOP/tests/vm/pcheck.sh" "$T/ram/$name.img" \
		"$VM/out/powercut/$name.crashes" "$w" > "$out" 2>&1 || fail "$name: replaylog: $(tail -n 1 "$out")"
	read -r _ points _ broken _ < <(grep '^points ' "$out")
	[ -n "${points:-}" ] || fail "$name: the replay did not end: $(tail -n 1 "$out")"
	grep -E '^point ' "$out" | head -n 5 | cut -c1-300 | sed 's/^/     /'
	printf '| %s | %s | %s | %s | %s |\n' "$name" "$(grep -c . "$VM/out/powercut/$name.crashes")" "$points" "$broken" \
		"$(grep -c '^note' "$out")" > "$VM/out/powercut/$name.row"
	rm -rf "$T/ram/$name.img" "$w"
	if [ "${name#planted}" != "$name" ]; then
		check "$name: the planted bug is caught: $broken of $points points broken ($(( $(date +%s) - t0 )) s)" \
			test "$broken" -gt 0
	else
		check "$name: every one of $points points holds ($(( $(date +%s) - t0 )) s)" test "$broken" -eq 0
	fi
}

# replay_all: every recording in $VM/out/powercut replayed and checked (replay), two at a time (a replay waits on its
# copies and mounts as much as on a CPU; the crashes they make share kernel.core_pattern under pcheck.sh's lock), its
# row in $B/powercut.md, in the recordings' order.
replay_all() {
	local log logs=() running=0 rc=0
	ls "$VM"/out/powercut/*.log > /dev/null 2>&1 || fail "no power-cut recording in $VM/out/powercut to replay"
	start_journald
	export PCHECK_LOCK=$T/pcheck.lock
	# The images and each point's copy in memory: a point is a copy, a mount and a check of a 320 MiB image, and on
	# this shared machine's slow days the disk made the replay take 20 minutes. The file system under test is the
	# image's own.
	mount_tmpfs "$T/ram" 3G
	# The next begun as soon as one ends, not in pairs that wait for their slower half (run 57's recordings, replayed
	# here alone: 45-98 s each, 164 s in all at 1.8 CPUs; the files' sizes do not say which takes longer).
	logs=("$VM"/out/powercut/*.log)
	for log in "${logs[@]}"; do
		if [ $running = 2 ]; then
			wait -n || rc=1
			running=1
		fi
		( replay "$log" ) > "${log%.log}.out" 2>&1 &
		running=$((running + 1))
	done
	for ((; running > 0; running--)); do wait -n || rc=1; done
	printf '| recording | crashes | points checked | broken | ledger as left counts more (a note) |\n' > "$B/powercut.md"
	printf '| --- | --- | --- | --- | --- |\n' >> "$B/powercut.md"
	for log in "${logs[@]}"; do
		cat "${log%.log}.out"
		cat "${log%.log}.row" >> "$B/powercut.md" 2> /dev/null
		rm -f "$log"
	done
	sed 's/^/     /' "$B/powercut.md"
	[ $rc = 0 ] || fail "a replay failed (above)"
}

# make check-powercut alone: a boot of its own for the recordings, then their replay.
powercut() {
	image sid
	ACCEL=$(probe_accel "$VM/sid/vmlinuz")
	[ -x "$B/planted/coresink" ] && [ -x "$B/replaylog" ] || fail "make check-powercut builds $B/planted and replaylog"
	cp --sparse=always "$VM/sid/base.img" "$VM/sid/disk.img" || fail "sid: copying the image"
	rm -rf "$VM/out/powercut"
	BOOT_TIMEOUT=3600 stage sid powercut
	rm -f "$VM/sid/disk.img"
	replay_all
	exit 0
}

# images: the releases' images built side by side (mmdebstrap waits on the mirror and on dpkg, rarely on a CPU);
# each one's failure said.
images() {
	local rel pids=() rc=0
	for rel in "$@"; do
		( image "$rel" ) > "$VM/image-$rel.out" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || rc=1
	done
	cat "$VM"/image-*.out
	rm -f "$VM"/image-*.out
	[ $rc = 0 ] || fail "an image could not be built (above)"
}

[ "$BENCH" = --bench ] && bench
[ "$BENCH" = --powercut ] && powercut
[ "$BENCH" = --replay ] && { replay_all; exit 0; }
RELEASES=${CORESINK_VM_RELEASES:-bookworm trixie sid}
# The power cuts are recorded in unstable's last boot, unless CORESINK_VM_RELEASES leaves it out.
RECORD=yes
package_debs
payload
images $RELEASES

rm -f "$VM"/out/*.log
printf '| release | kernel | systemd | mode chosen by the package | pidfd to the pipe handler (%%F) | checks passed | boot to multi-user | release total |\n' > "$TABLE"
printf '| --- | --- | --- | --- | --- | --- | --- | --- |\n' >> "$TABLE"
for rel in $RELEASES; do
	release "$rel"
done
echo "accelerator: $ACCEL" >> "$TABLE"
# What each guest's entry named of a container's crash, runtime by runtime (guest.sh's pods_checks, rootless_checks and
# cri_checks: "fact pods").
{ printf '\n| runtime | version | guest | container id | container name | image | pod | namespace | from |\n'
  printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
  for rel in $RELEASES; do
	sed -n "s/^fact pods //p" "$VM/out/$rel"-*.log 2>/dev/null | awk -v rel="$rel" -F ' [|] ' \
		'{ printf "| %s | %s | %s", $1, $2, rel; for (i = 3; i <= NF; i++) printf " | %s", $i; print " |" }'
  done; } >> "$TABLE"
sed 's/^/     /' "$TABLE"
# With --record, the replay is left for later (make check-all runs it once the end-to-end tests are done).
case " $RELEASES " in
*" sid "*) [ "$BENCH" = --record ] || replay_all ;;
esac
