#!/bin/bash
# The owner's access: an unprivileged user's crash is readable by that user (a POSIX ACL entry, user:UID:r--), so
# that coredumpctl info and debug work for them without sudo; another user cannot read it. A setuid crash (dump
# mode 2), and a setuid program that dropped back to its user and made itself dumpable (dump mode 1, but
# AT_SECURE), stay root's alone, as systemd-coredump decides since CVE-2025-4598.
# tier: fast (make check, and make check-all)
# journald: both (run again with a journald the test did not start: what it checks depends on whose it is)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern, crashes processes as another user and starts systemd-journald"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
command -v getfacl >/dev/null || skip "no getfacl (acl)"
command -v coredumpctl >/dev/null || skip "no coredumpctl (systemd-coredump)"
scratch
chmod 0755 "$T"
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
USER_ID=4242 OTHER_ID=4243
as() { local id=$1; shift; HOME=$T setpriv --reuid="$id" --regid="$id" --clear-groups "$@"; }

# as_crash UID ARGS...: the crasher, run as UID, crashes; sets CRASH_PID (crash_run).
as_crash() {
	local id=$1; shift
	HOME=$T crash_run setpriv --reuid="$id" --regid="$id" --clear-groups "$@"
}

as_crash "$USER_ID" "$CRASHER" 8
e=$(journal_entry "$CRASH_PID") || fail "no entry"
core=$(field "$e" COREDUMP_FILENAME)
acl=$(getfacl -cp "$core" 2>/dev/null)
check "the user's crash: user:$USER_ID:r-- on its core" has_line "$acl" "user:$USER_ID:r--"
check "and the entry says so" has_line "$e" "CORESINK_ACL=user read"
check "the file is still root's, 0640" test "$(stat -c '%U %a' "$core")" = "root 640"
check "the user reads it" as "$USER_ID" cmp -s "$core" "$core"
cannot_read() { ! as "$1" cat "$2" >/dev/null 2>&1; }
check "another user does not" cannot_read "$OTHER_ID" "$core"
if command -v gdb >/dev/null; then
	bt=$(cdctl debug "$CRASH_PID" --debugger-arguments="-batch -ex bt" 2>&1)
	check "coredumpctl debug, as root, shows the frame" has "$bt" "crash_here"
fi

# coredumpctl as the user reads the user's own journal file, which journald splits off on persistent storage only
# (which a journald not the test's own may not have). So: a private journald with persistent storage in a private
# mount namespace; a live crasher of the user's, stopped just before its crash, whose core gcore takes; the handler
# run there directly with it and a pidfd of it as %F, as the kernel would. Then coredumpctl info and debug, as the
# user.
if command -v gdb >/dev/null && command -v gcore >/dev/null; then
	cat > "$T/ns.sh" <<EOS
. "$TOP/tests/e2e/lib.sh"
start_journald
mkdir -p /var/log/journal && journalctl --flush >/dev/null 2>&1
( exec setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$CRASHER" -P 8 ) & p=\$!
at_exit "kill -9 \$p 2>/dev/null; wait \$p 2>/dev/null"
for _ in \$(seq 100); do [ "\$(cut -d' ' -f3 /proc/\$p/stat)" = T ] && break; sleep 0.05; done
gcore -o "$T/g" \$p >/dev/null 2>&1 || fail "gcore"
"$WITHPIDFD" \$p "$CORESINK" --config "$T/c.conf" \$p $USER_ID $USER_ID 11 "\$(date +%s)" "$UNLIMITED" \
	"\$(hostname)" crasher 1 3 < "$T/g.\$p"
journal_entry \$p >/dev/null || fail "no entry"
info=\$(HOME=$T setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups coredumpctl info --no-pager --since "$TEST_SINCE" \$p 2>&1)
check "coredumpctl info, as the user: its crash, with the trace" has "\$info" "Stack trace of thread \$p:"
bt=\$(HOME=$T setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
	coredumpctl debug --no-pager --since "$TEST_SINCE" \$p --debugger-arguments="-batch -ex bt" 2>&1)
check "coredumpctl debug, as the user: gdb shows the frame" matches "\$bt" "^#[0-9]+ .* in main \\("
EOS
	in_private_ns "$T/ns.sh" || fail "the private namespace's checks"
fi

# Setuid, not dumpable by its owner (fs.suid_dumpable=2 lets root have it): no grant.
old=$(cat /proc/sys/fs/suid_dumpable)
at_exit "echo $old > /proc/sys/fs/suid_dumpable"
echo 2 > /proc/sys/fs/suid_dumpable
cp "$CRASHER" "$T/suid-crasher" && chmod 4755 "$T/suid-crasher"
as_crash "$USER_ID" "$T/suid-crasher" 8
e=$(journal_entry "$CRASH_PID") || fail "no entry for the setuid crash"
core=$(field "$e" COREDUMP_FILENAME)
check "a setuid crash (dump mode 2): no ACL" has_line "$(getfacl -cp "$core" 2>/dev/null)" "user::rw-"
check "only the owning user's line" test "$(getfacl -cp "$core" 2>/dev/null | grep -c '^user:[0-9]')" -eq 0
check "0600, root's alone" test "$(stat -c '%U %a' "$core")" = "root 600"
# Setuid, dropped back to the user for good and dumpable again: dump mode 1, but started in secure mode.
as_crash "$USER_ID" "$T/suid-crasher" -D 8
e=$(journal_entry "$CRASH_PID") || fail "no entry for the dropped setuid crash"
core=$(field "$e" COREDUMP_FILENAME)
check "a setuid program that dropped its privileges dumps with mode 1" has_line "$e" "COREDUMP_DUMPABLE=1"
check "but AT_SECURE keeps its core from the user" test "$(getfacl -cp "$core" 2>/dev/null | grep -c '^user:[0-9]')" -eq 0
check "and the entry says nothing of an ACL" lacks "$e" "CORESINK_ACL"
check "and the entry is root's, not handed to the user" has_line "$e" "_UID=0"

# Only a person gets their core: uids that name no one for good (nobody, a system user, a DynamicUser= uid, a
# container's private one) get no ACL, and their entries stay root's; their analysis runs as coresink-analysis.
echo 0 > /proc/sys/fs/suid_dumpable
for id in 65534:nobody 999:a-system-user 61200:a-DynamicUser 524289:a-container-uid 5000:a-person; do
	as_crash "${id%%:*}" "$CRASHER" 8
	e=$(journal_entry "$CRASH_PID") || fail "no entry for uid ${id%%:*}"
	core=$(field "$e" COREDUMP_FILENAME)
	acls=$(getfacl -cp "$core" 2>/dev/null | grep -c '^user:[0-9]')
	if [ "${id#*:}" = a-person ]; then
		check "uid ${id%%:*} (${id#*:}): its ACL, its entry" \
			bash -c "[ $acls -eq 1 ] && grep -qx '_UID=${id%%:*}' <<< '$(printf '%s\n' "$e" | grep '^_UID=')'"
	else
		check "uid ${id%%:*} (${id#*:}): no ACL, the entry root's" \
			bash -c "[ $acls -eq 0 ] && grep -qx '_UID=0' <<< '$(printf '%s\n' "$e" | grep '^_UID=')'"
	fi
done

# Without %F (kernels before 6.16), as the kernel's own pattern would be there: a wrapper drops fd 3 and passes no
# pidfd. The crash of a person's process is still described (its thread still dumps core: PF_DUMPCORE) and its entry
# is theirs, but the core is not: only a pidfd proves whose crash it is well enough for that.
cat > "$T/nof.sh" <<EOS
#!/bin/sh
exec 3<&-
exec "$CORESINK" --config "$T/c.conf" "\$1" "\$2" "\$3" "\$4" "\$5" "\$6" "\$7" "\$8" "\$9" "" "\${10}"
EOS
chmod 0755 "$T/nof.sh"
printf '|%s %%P %%u %%g %%s %%t %%c %%h %%e %%d %%I\n' "$T/nof.sh" > /proc/sys/kernel/core_pattern
as_crash "$USER_ID" "$CRASHER" 8
e=$(journal_entry "$CRASH_PID") || fail "no entry without %F"
core=$(field "$e" COREDUMP_FILENAME)
check "without %F: the core is stored" test -f "$core"
check "without %F: its metadata, proven by PF_DUMPCORE on %I" matches "$e" "^COREDUMP_CMDLINE=.*crasher 8$"
check "without %F: its entry is the user's" has_line "$e" "_UID=$USER_ID"
check "without %F: no ACL" test "$(getfacl -cp "$core" 2>/dev/null | grep -c '^user:[0-9]')" -eq 0
check "without %F: and the entry says why" \
	has_line "$e" "CORESINK_ACL=none: the kernel gave no pidfd (%F) to prove whose crash it was"
