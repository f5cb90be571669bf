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
. "$(dirname "$0")/lib.sh"
need_root "it boots containers and sets kernel.core_pattern"
need_socket_mode
command -v systemd-nspawn > /dev/null || skip "no systemd-nspawn (Debian's systemd-container)"
scratch
package_debs
PKGS=systemd,systemd-coredump,systemd-sysv,dbus,gdb,acl,zstd,procps,jq,apt,util-linux
before=$(cat /proc/sys/kernel/core_pattern)
at_exit "printf '%s\n' '$before' > /proc/sys/kernel/core_pattern"
TABLE=$B/releases.md
printf '| release | systemd | boot | coresink.service | systemd-coredump@.service | systemd-coredumpd.service | coredumpctl checks |\n' > "$TABLE"
printf '| --- | --- | --- | --- | --- | --- | --- |\n' >> "$TABLE"

# The program TEST-87 crashes: a copy of the root's sleep, killed by a signal once it sleeps.
make_dump() {
	cat > "$1/usr/local/bin/make-dump" <<'EOS'
#!/bin/bash
bin=$1 sig=$2
ulimit -c unlimited
"$bin" infinity &
pid=$!
for _ in $(seq 40); do read -ra st < "/proc/$pid/stat"; [ "${st[2]}" = S ] && break; sleep 0.25; done
kill -s "$sig" "$pid"
! wait "$pid"
EOS
	chmod 0755 "$1/usr/local/bin/make-dump"
	cp "$1/usr/bin/sleep" "$1/usr/local/bin/test-dump"
	cp "$1/usr/bin/sleep" "$1/usr/local/bin/test-usr-dump"
}

# cd_ok WHAT CMD...: CMD inside; counts it among the coredumpctl checks.
CHECKS=0
cd_ok() { local what=$1; shift; check "$REL: $what" "$@"; CHECKS=$((CHECKS + 1)); }
# count BIN: how many crashes of BIN the container's coredumpctl lists.
count() { inside coredumpctl list -q --no-legend "$1" 2>/dev/null | wc -l; }
wait_count() { for _ in $(seq 60); do [ "$(count "$1")" -ge "$2" ] && return 0; sleep 0.5; done; return 1; }
as_user() { inside runuser -u testuser -- env SYSTEMD_PAGER= "$@"; }
score() { inside systemd-analyze security --no-pager "$1" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'; }
# knows STRING: whether this release's coredumpctl (or the shared library it uses) knows STRING.
knows() { inside sh -c "grep -qaF '$1' /usr/bin/coredumpctl /usr/lib/*/systemd/libsystemd-shared-*.so /usr/lib/systemd/libsystemd-shared-*.so 2>/dev/null"; }

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

# coredumpctl_checks: TEST-87's crashes, and its checks as root, with this release's coredumpctl.
coredumpctl_checks() {
	local args out core
	# TEST-87's crashes: root's test-dump and testuser's test-usr-dump, SIGTRAP and SIGABRT each.
	dump root test-dump SIGTRAP
	dump root test-dump SIGABRT
	dump testuser test-usr-dump SIGTRAP
	dump testuser test-usr-dump SIGABRT
	wait_count /usr/local/bin/test-dump 2 && wait_count /usr/local/bin/test-usr-dump 2
	cd_ok "coredumpctl lists the 4 crashes coresink.service (started by the socket) stored" \
		test "$(count /usr/local/bin/test-dump) $(count /usr/local/bin/test-usr-dump)" = "2 2"
	inside journalctl --sync; inside journalctl --rotate > /dev/null 2>&1
	for args in "-1" "-n 1"; do
		out=$(inside env SYSTEMD_PAGER= coredumpctl $args 2>&1)
		cd_ok "coredumpctl $args lists one crash: $(printf '%s\n' "$out" | sed -n 2p | awk '{ print $NF, $(NF-1) }')" \
			test "$(printf '%s\n' "$out" | grep -c ' /usr/local/bin/test-u*s*r*-*dump ')" = 1
	done
	for args in "" "--all" "--reverse" "--no-legend" "--since=@0" "--since=yesterday --until=tomorrow" \
		"--root=/" "--directory=/var/log/journal"; do
		out=$(inside env SYSTEMD_PAGER= coredumpctl $args 2>&1)
		cd_ok "coredumpctl $args lists test-dump" has "$out" /usr/local/bin/test-dump
	done
	out=$(inside sh -c 'SYSTEMD_PAGER= coredumpctl --file=/var/log/journal/$(cat /etc/machine-id)/*.journal' 2>&1)
	cd_ok "coredumpctl --file=<the journal files>" has "$out" /usr/local/bin/test-dump
	cd_ok "coredumpctl -F COREDUMP_EXE" has "$(inside coredumpctl -F COREDUMP_EXE)" /usr/local/bin/test-dump
	cd_ok "coredumpctl --field=COREDUMP_FILENAME names coresink's files" \
		has "$(inside coredumpctl --field=COREDUMP_FILENAME)" /var/lib/coresink/core.
	out=$(inside coredumpctl --json=short list /usr/local/bin/test-dump 2>&1)
	cd_ok "coredumpctl --json=short: each crash with its pid, signal, executable and a present core" \
		quiet jq -e 'length == 2 and all(.[]; .pid > 0 and (.sig == 5 or .sig == 6) and .exe == "/usr/local/bin/test-dump"
			and .corefile == "present")' <<< "$out"
	cd_ok "coredumpctl --json=pretty parses" quiet jq -e . <<< "$(inside coredumpctl --json=pretty)"
	cd_ok "coredumpctl --json=off" quiet inside coredumpctl --json=off --no-pager

	for args in "/usr/local/bin/test-dump" "/foo /bar/ /baz /usr/local/bin/test-dump" "test-dump" "foo bar baz test-dump" \
		"COREDUMP_EXE=/usr/local/bin/test-dump" "COREDUMP_EXE=aaaaa COREDUMP_EXE= COREDUMP_EXE=/usr/local/bin/test-dump"; do
		out=$(inside env SYSTEMD_PAGER= coredumpctl info $args 2>&1)
		cd_ok "coredumpctl info $args: the crash, its storage and stack trace" all_of_re "$out" \
			'Executable: /usr/local/bin/test-dump' 'Storage: /var/lib/coresink/core\.' '#0 +0x[0-9a-f]+'
	done
	out=$(inside env SYSTEMD_PAGER= coredumpctl info --json=short /usr/local/bin/test-dump 2>/dev/null)
	if jq -e . <<< "$out" > /dev/null 2>&1 && [ -n "$out" ]; then
		cd_ok "coredumpctl info --json=short: PID, Signal, Executable, Command, Storage on each" quiet jq -se \
			'length > 0 and all(.[]; .PID > 0 and .Signal > 0 and has("Executable") and has("Command") and has("Storage"))' \
			<<< "$out"
	else
		ok "$REL: coredumpctl info --json: not in systemd $VERSION (it prints no JSON for info)"
	fi
	out=$(inside journalctl -o json MESSAGE_ID=$MESSAGE_ID COREDUMP_EXE=/usr/local/bin/test-dump | jq -r '"\(.COREDUMP_PID) \(.COREDUMP_TID)"' | sort -u)
	cd_ok "COREDUMP_TID (read from the core in socket mode) is the thread that crashed, sleep's only one: $(echo $out)" \
		test -n "$out" -a -z "$(printf '%s\n' "$out" | awk '$1 != $2')"
	if knows "TID:"; then
		cd_ok "coredumpctl info shows the TID" has "$(inside env SYSTEMD_PAGER= coredumpctl info /usr/local/bin/test-dump)" "TID:"
	fi
	if knows "si_code: "; then
		cd_ok "coredumpctl info: Signal: 5 (TRAP) si_code: SI_USER" has \
			"$(inside env SYSTEMD_PAGER= coredumpctl info /usr/local/bin/test-dump)" "Signal: 5 (TRAP) si_code: SI_USER"
	fi
	cd_ok "coredumpctl debug --debugger=/bin/true" quiet inside coredumpctl debug --debugger=/bin/true /usr/local/bin/test-dump
	cd_ok "SYSTEMD_DEBUGGER=/bin/true coredumpctl debug" quiet inside env SYSTEMD_DEBUGGER=/bin/true coredumpctl debug test-dump
	cd_ok "coredumpctl debug --debugger-arguments=... (passed through)" quiet inside coredumpctl debug --debugger=/bin/true \
		--debugger-arguments="-this --does --not 'do anything' -a -t --all" test-dump
	out=$(inside coredumpctl debug --debugger-arguments="-batch -ex bt" /usr/local/bin/test-dump 2>&1)
	cd_ok "coredumpctl debug: gdb reads the core: $(printf '%s\n' "$out" | grep -m1 '^#0')" matches "$out" '^#0 '
	inside sh -c 'coredumpctl dump /usr/local/bin/test-dump > /tmp/core.redirected 2>/dev/null'
	core=$(inside coredumpctl --field=COREDUMP_FILENAME list /usr/local/bin/test-dump | tail -n 1)
	cd_ok "coredumpctl dump > file: the stored core's bytes" inside sh -c \
		"test -s /tmp/core.redirected && { zstd -dcqf '$core' 2>/dev/null || cat '$core'; } | cmp -s - /tmp/core.redirected"
	cd_ok "coredumpctl dump -o file" inside sh -c 'coredumpctl dump -o /tmp/core.output test-dump > /dev/null 2>&1 && test -s /tmp/core.output'
	cd_ok "coredumpctl dump --output=/dev/full fails" fails quiet inside coredumpctl dump --output=/dev/full test-dump
}

# user_checks: TEST-87's checks as the crashing user: their own crashes, not root's.
user_checks() {
	cd_ok "as testuser: coredumpctl info test-usr-dump" has "$(as_user coredumpctl info test-usr-dump 2>&1)" \
		"Executable: /usr/local/bin/test-usr-dump"
	cd_ok "as testuser: not root's test-dump" fails quiet as_user coredumpctl info --all /usr/local/bin/test-dump
	cd_ok "as testuser: --field=COREDUMP_FILENAME names coresink's files" \
		has "$(as_user coredumpctl --field=COREDUMP_FILENAME 2>&1)" /var/lib/coresink/core.
	cd_ok "as testuser: coredumpctl debug --debugger=/bin/true" quiet as_user coredumpctl debug --debugger=/bin/true test-usr-dump
	cd_ok "as testuser: coredumpctl dump of their own core" as_user sh -c 'coredumpctl dump test-usr-dump 2>/dev/null | head -c 4 | grep -q ELF'
	cd_ok "as testuser: coredumpctl dump of root's fails" fails quiet as_user coredumpctl dump /usr/local/bin/test-dump
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

# dump USER BIN SIGNAL: TEST-87's make-dump of /usr/local/bin/BIN as USER, a unit of the container's systemd.
dump() {
	local uid=""
	[ "$1" = root ] || uid=--uid=$1
	inside systemd-run -q --wait --pipe $uid /usr/local/bin/make-dump "/usr/local/bin/$2" "$3" > /dev/null 2>&1
}

fails() { ! "$@"; }
quiet() { "$@" > /dev/null 2>&1; }
# all_of_re TEXT RE...: every extended regex matches a line of TEXT.
all_of_re() { local text=$1 r; shift; for r in "$@"; do matches "$text" "$r" || return 1; done; }

for rel in ${CORESINK_RELEASES:-bookworm trixie sid}; do
	release "$rel"
done
sed 's/^/     /' "$TABLE"
