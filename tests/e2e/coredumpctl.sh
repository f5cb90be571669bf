# coredumpctl.sh: TEST-87's crashes and coredumpctl checks (systemd's TEST-87-AUX-UTILS-VM.coredump.sh, earlier
# testsuite-74.coredump.sh), run with the system's own coredumpctl wherever inside() runs a command: a container
# booted by t-releases (lib.sh's inside: nsenter), or the very system a VM guest runs them on (tests/vm/guest.sh
# defines inside as running the command). Sourced after lib.sh; REL names the release in every line, VERSION is its
# systemd's version. The crashes
# are /usr/local/bin/test-dump (root's) and test-usr-dump (testuser's): copies of the root's sleep.

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

# coredumpctl_checks: TEST-87's crashes, and its checks as root, with this release's coredumpctl.
coredumpctl_checks() {
	local args out core
	# TEST-87's crashes: root's test-dump and testuser's test-usr-dump, SIGTRAP and SIGABRT each.
	dump root test-dump SIGTRAP
	dump root test-dump SIGABRT
	dump testuser test-usr-dump SIGTRAP
	dump testuser test-usr-dump SIGABRT
	wait_count /usr/local/bin/test-dump 2 && wait_count /usr/local/bin/test-usr-dump 2
	cd_ok "coredumpctl lists the 4 crashes coresink stored" \
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

# user_checks: TEST-87's checks as the crashing user: their own crashes, not root's. The user may read their own
# core only where the kernel's pidfd proved whose crash it was; where the kernel gave none, the entry says why not
# (CORESINK_ACL=none: ...), and their dump fails as root's does.
user_checks() {
	local acl
	cd_ok "as testuser: coredumpctl info test-usr-dump" has "$(as_user coredumpctl info test-usr-dump 2>&1)" \
		"Executable: /usr/local/bin/test-usr-dump"
	cd_ok "as testuser: not root's test-dump" fails quiet as_user coredumpctl info --all /usr/local/bin/test-dump
	cd_ok "as testuser: --field=COREDUMP_FILENAME names coresink's files" \
		has "$(as_user coredumpctl --field=COREDUMP_FILENAME 2>&1)" /var/lib/coresink/core.
	cd_ok "as testuser: coredumpctl debug --debugger=/bin/true" quiet as_user coredumpctl debug --debugger=/bin/true test-usr-dump
	acl=$(last_field test-usr-dump CORESINK_ACL)
	if pidfd_given test-usr-dump; then
		cd_ok "as testuser: the kernel gave a pidfd, so the entry grants the user their core: $acl" test "$acl" = "user read"
		cd_ok "as testuser: coredumpctl dump of their own core" \
			as_user sh -c 'coredumpctl dump test-usr-dump 2>/dev/null | head -c 4 | grep -q ELF'
	else
		cd_ok "as testuser on $(uname -r), no pidfd (%F): the entry says why the core is root's alone: $acl" \
			test "$acl" = "none: the kernel gave no pidfd (%F) to prove whose crash it was"
		cd_ok "as testuser on $(uname -r): so their dump fails" fails quiet as_user coredumpctl dump test-usr-dump
	fi
	cd_ok "as testuser: coredumpctl dump of root's fails" fails quiet as_user coredumpctl dump /usr/local/bin/test-dump
}

# last_field BIN FIELD: FIELD of coresink's last entry of /usr/local/bin/BIN.
last_field() {
	inside journalctl -q -o cat --output-fields="$2" MESSAGE_ID=$MESSAGE_ID "COREDUMP_EXE=/usr/local/bin/$1" | tail -n 1
}

# pidfd_given BIN: whether the kernel handed the handler of BIN's last crash a pidfd of the crashing process: in
# socket mode always (SO_PEERPIDFD); in pipe mode where %F expanded, the handler's 11th argument (Linux 6.16, and
# the stable kernels it went back to with the fix for CVE-2025-4598: Debian 12's 6.1.0-56 has it).
pidfd_given() {
	[ "$(last_field "$1" CORESINK_MODE)" = socket ] ||
		[ -n "$(inside journalctl -q -o json MESSAGE_ID=$MESSAGE_ID "COREDUMP_EXE=/usr/local/bin/$1" | tail -n 1 |
			jq -r '._CMDLINE' | awk -F'[ ]' '{ print $11 }')" ]
}

# dump USER BIN SIGNAL: TEST-87's make-dump of /usr/local/bin/BIN as USER, a unit of the container's systemd.
dump() {
	local uid=""
	[ "$1" = root ] || uid=--uid=$1
	inside systemd-run -q --wait --pipe $uid /usr/local/bin/make-dump "/usr/local/bin/$2" "$3" > /dev/null 2>&1
}


