#!/bin/bash
# The package under each Debian release's own systemd: Debian 12 (252), 13 (257) and unstable (262 at the time of
# writing), each a root built by mmdebstrap, booted as PID 1 in a container (systemd-nspawn -b). In each:
# - the package installed with apt (apt install ./coresink_*.deb), which starts coresink.socket and says why it
#   leaves kernel.core_pattern alone (it is the host's); the host then points "@@" at the container's socket;
# - real crashes, handled by the service the socket starts, read by that release's coredumpctl with the checks of
#   systemd's own coredump test (TEST-87-AUX-UTILS-VM.coredump.sh, earlier testsuite-74.coredump.sh): list, info by
#   path, name and field, --json, -F, --file, --directory, debug, dump, as root and as the crashing user;
# - the unit's exposure (systemd-analyze security) against that release's systemd-coredump@.service;
# - an upgrade that keeps an edited /etc/coresink.conf and the cores, a removal, a purge.
# CORESINK_RELEASES picks the releases (default: bookworm trixie sid). Figures go to $B/releases.md.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/coredumpctl.sh"
need_root "it boots containers and sets kernel.core_pattern"
need_socket_mode
command -v systemd-nspawn > /dev/null || skip "no systemd-nspawn (Debian's systemd-container)"
scratch
package_debs
PKGS=$RELEASE_PKGS
before=$(cat /proc/sys/kernel/core_pattern)
at_exit "printf '%s\n' '$before' > /proc/sys/kernel/core_pattern"
TABLE=$B/releases.md
printf '| release | systemd | boot | coresink.service | systemd-coredump@.service | systemd-coredumpd.service | coredumpctl checks |\n' > "$TABLE"
printf '| --- | --- | --- | --- | --- | --- | --- |\n' >> "$TABLE"

# release REL: one release, from its root to its purge.
release() {
	REL=$1 CHECKS=0
	local root=$T/root-$1 sock=$T/sock-$1
	boot_release "$root" "$sock"
	install_release "$sock"
	coredumpctl_checks
	user_checks
	exposure
	upgrade_and_remove
	printf '%s\n' "$before" > /proc/sys/kernel/core_pattern
	stop_container "$NSPAWN"
	rm -rf "$root"
}

# boot_release ROOT SOCKDIR: REL's root with the packages, a user and TEST-87's program, booted; sets VERSION.
boot_release() {
	local root=$1 sock=$2 t0
	t0=$(date +%s)
	debian_root "$root" "$REL" "$PKGS"
	chroot "$root" useradd -m -u 1000 testuser || fail "$REL: useradd"
	mkdir -p "$root/var/log/journal" "$root/root/debs"
	cp "$DEB" "$DEB2" "$root/root/debs/"
	make_dump "$root"
	cp "$root/usr/bin/sleep" "$root/usr/local/bin/test-dump"
	cp "$root/usr/bin/sleep" "$root/usr/local/bin/test-usr-dump"
	echo "cs-$REL" > "$root/etc/hostname"
	mkdir -m 0700 "$sock"
	ok "$REL: root ready in $(( $(date +%s) - t0 )) s"

	boot_root "$root" --capability=CAP_CHECKPOINT_RESTORE --bind="$sock:/run/coresink"
	VERSION=$(inside systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
	check "$REL: systemd $VERSION booted as PID 1 in $BOOT_MS ms: $BOOT_STATE" \
		test "$BOOT_STATE" = running -o "$BOOT_STATE" = degraded
	[ "$BOOT_STATE" = running ] || inside systemctl --failed --no-pager --no-legend | sed 's/^/     failed: /'
}

# install_release SOCKDIR: the package installed with apt inside, then the host's "@@" pointed at its socket.
install_release() {
	local sock=$1 said
	# Installed with apt, as the README says.
	apt_in apt "apt install ./$(basename "$DEB")" install "/root/debs/$(basename "$DEB")"
	said=$(grep '^coresink:' "$T/apt-$REL.log" | head -n 2 | tr '\n' ' ')
	check "$REL: apt installed the package; coresink.socket started by its postinst" \
		inside systemctl is-active -q coresink.socket
	check "$REL: it leaves kernel.core_pattern to the host, and says so: $said" has "$said" "in a container"
	check "$REL: users and core directory made (sysusers.d, tmpfiles.d)" \
		quiet inside sh -c 'id -u coresink-analysis && test -d /var/lib/coresink'
	printf '@@%s/kernel.socket\n' "$sock" > /proc/sys/kernel/core_pattern || fail "core_pattern"
}

# exposure: systemd-analyze security of the unit beside this release's systemd-coredump, and the directives taken.
exposure() {
	# Exposure, beside this release's systemd-coredump.
	local ours theirs out
	ours=$(score coresink.service) theirs=$(score systemd-coredump@.service)
	check "$REL: systemd-analyze security: coresink.service $ours, systemd-coredump@.service $theirs" \
		awk -v a="$ours" -v b="$theirs" 'BEGIN { exit !(a != "" && b != "" && a + 0 <= b + 0) }'
	# The newer directives: taken where this systemd knows them, ignored (the older line kept) where not.
	out=$(inside systemctl show -p PrivateTmp -p PrivateTmpEx -p PrivateIPC coresink.service | tr '\n' ' ')
	if [ "$VERSION" -ge 257 ]; then
		check "$REL: PrivateTmp=disconnected taken: $out" matches "$out" 'PrivateTmpEx=disconnected'
	else
		check "$REL: PrivateTmp=disconnected ignored by $VERSION, PrivateTmp=yes kept: $out" matches "$out" 'PrivateTmp=yes'
	fi
	check "$REL: PrivateIPC=yes" matches "$out" 'PrivateIPC=yes'
	# systemd-coredump's own socket server, where this systemd has it: coresink's drop-in is loaded. (A container
	# never runs it, ConditionVirtualization=!container.)
	local server="" sscore="n/a"
	if inside systemctl cat systemd-coredumpd.service > /dev/null 2>&1; then
		check "$REL: systemd-coredumpd.service has coresink's drop-in" \
			has "$(inside systemctl show -p DropInPaths systemd-coredumpd.service)" systemd-coredumpd.service.d/coresink.conf
		sscore=$(score systemd-coredumpd.service)
		server=" (systemd-coredumpd.service, its socket server: $sscore)"
	fi
	ok "$REL: exposure $ours for coresink.service, $theirs for systemd-coredump@.service$server"
	printf '| %s | %s | %s ms | %s | %s | %s | %s passed |\n' "$REL" "$VERSION" "$BOOT_MS" "$ours" "$theirs" "$sscore" \
		"$CHECKS" >> "$TABLE"
}

# upgrade_and_remove: an upgrade with an edited config, then removal and purge.
upgrade_and_remove() {
	inside sh -c 'echo "MaxUse=90%" >> /etc/coresink.conf'
	local edited ncores out
	edited=$(inside md5sum /etc/coresink.conf)
	ncores=$(inside sh -c 'ls /var/lib/coresink | grep -c "^core\."')
	apt_in apt2 "the upgrade" install "/root/debs/$(basename "$DEB2")"
	check "$REL: upgraded to $(inside dpkg-query -W -f '${Version}' coresink): edited config kept, $ncores cores kept" \
		test "$(inside md5sum /etc/coresink.conf) $(inside sh -c 'ls /var/lib/coresink | grep -c "^core\."')" = "$edited $ncores"
	dump root test-dump SIGSEGV
	check "$REL: a crash after the upgrade is stored" wait_count /usr/local/bin/test-dump 3
	apt_in rm "apt remove" remove coresink
	check "$REL: removed: coresink.socket stopped" fails inside systemctl is-active -q coresink.socket
	apt_in purge "apt purge" purge coresink
	out=$(inside sh -c 'ls -d /etc/coresink.conf /var/lib/coresink /var/lib/coresink.previous /etc/systemd/system/*/coresink* 2>/dev/null')
	check "$REL: purged: nothing left${out:+: $out}" test -z "$out"
}

# apt_in LOG WHAT ARGS...: apt-get ARGS inside, its output in $T/LOG-REL.log; fails the test (WHAT) if apt does.
apt_in() {
	local log=$T/$1-$REL.log what=$2; shift 2
	inside env DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@" > "$log" 2>&1 || { tail -n 20 "$log"; fail "$REL: $what"; }
}

for rel in ${CORESINK_RELEASES:-bookworm trixie sid}; do
	release "$rel"
done
sed 's/^/     /' "$TABLE"
