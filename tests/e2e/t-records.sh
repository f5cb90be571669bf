#!/bin/bash
# Crash records for real, with coredumpctl and a real journald: info and debug work on a capture; /proc metadata
# comes under systemd-coredump's field names; the file carries user.coredump.* xattrs; the environment only on
# request; the unit from a real cgroup; a container's launcher; the entry in the crashing user's own journal; a
# non-dumpable process's entry and core kept root's.
# tier: fast (make check, and make check-all)
# journald: both (run again with a journald the test did not start: what it checks depends on whose it is)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern, starts systemd-journald and creates a cgroup"
command -v coredumpctl >/dev/null || skip "no coredumpctl (systemd-coredump)"
command -v getfattr >/dev/null || skip "no getfattr (attr)"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"

cd "$T" && crash 8 && cd - >/dev/null
e=$(journal_entry "$CRASH_PID") || fail "no entry"
core=$(only_file "$T/cores") || exit 1
info=$(cdctl info "$CRASH_PID" 2>&1)
check "coredumpctl info: the executable" has "$info" "Executable: $CRASHER"
check "coredumpctl info: the command line" has "$info" "Command Line: $CRASHER 8"
check "coredumpctl info: the file, present" has "$info" "Storage: $core (present)"
dbg=$(cdctl debug "$CRASH_PID" --debugger-arguments="-batch -ex bt" 2>&1)
check "coredumpctl debug: gdb shows the crashing frame" has "$dbg" "#0  crash_here"
check "COREDUMP_CMDLINE" has_line "$e" "COREDUMP_CMDLINE=$CRASHER 8"
check "COREDUMP_CWD" has_line "$e" "COREDUMP_CWD=$T"
check "COREDUMP_ROOT" has_line "$e" "COREDUMP_ROOT=/"
check "COREDUMP_PROC_STATUS" has "$e" "Name:	crasher"
check "COREDUMP_PROC_LIMITS" has "$e" "Max core file size"
check "COREDUMP_PROC_MAPS" has "$e" "$CRASHER"
check "COREDUMP_OPEN_FDS" has "$e" "flags:"
check "COREDUMP_CGROUP" matches "$e" '^COREDUMP_CGROUP=/'
check "no COREDUMP_ENVIRON unless asked" lacks "$e" "COREDUMP_ENVIRON"
for x in "pid=$CRASH_PID" "uid=0" "gid=0" "signal=11" "comm=crasher" "exe=$CRASHER" "hostname=$(hostname)"; do
	v=$(getfattr --only-values -n "user.coredump.${x%%=*}" "$core" 2>/dev/null)
	check "xattr user.coredump.${x%%=*}=${x#*=}" test "$v" = "${x#*=}"
done

# The environment, on request only.
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"CaptureEnvironment=yes"
export CORESINK_E2E_MARK=visible
crash 8
unset CORESINK_E2E_MARK
e=$(journal_entry "$CRASH_PID") || fail "no entry"
check "CaptureEnvironment=yes: COREDUMP_ENVIRON has the process's variables" has "$e" "CORESINK_E2E_MARK=visible"
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"

# The unit, from a real cgroup named as systemd names them.
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$cg" ]; then
	unit=$cg/coresink-e2e.slice/coresink-e2e-$$.service
	mkdir -p "$unit" || fail "mkdir $unit"
	at_exit "rmdir '$unit' '$cg/coresink-e2e.slice'"
	{ ( echo "$BASHPID" > "$unit/cgroup.procs"; ulimit -c unlimited; exec "$CRASHER" 8 ) & p=$!; wait $p; } 2>/dev/null
	e=$(journal_entry "$p") || fail "no entry"
	check "COREDUMP_UNIT from the cgroup" has_line "$e" "COREDUMP_UNIT=coresink-e2e-$$.service"
	check "COREDUMP_SLICE from the cgroup" has_line "$e" "COREDUMP_SLICE=coresink-e2e.slice"
else
	echo "SKIP $NAME: no cgroup2 mount: unit mapping not tested here"
fi

# A container: another pid namespace; its launcher's command line is recorded.
{ ( ulimit -c unlimited; exec unshare --pid --fork --mount-proc sh -c "'$CRASHER' 8; true" ); } 2>/dev/null
# Its entry comes after the process has gone: wait for the one that names a container.
for _ in $(seq 50); do
	e=$(jctl -o export "MESSAGE_ID=$MESSAGE_ID" COREDUMP_COMM=crasher -r -n 1 | tr -d '\0')
	has "$e" COREDUMP_CONTAINER_CMDLINE && break
	sleep 0.1
done
check "a crash in another pid namespace records its launcher" \
	has_line "$e" "COREDUMP_CONTAINER_CMDLINE=unshare --pid --fork --mount-proc sh -c '$CRASHER' 8; true"

# A user's crash: the entry is sent with the user's credentials, into that user's own journal file. journald splits
# by user on persistent storage only, which a journald not the test's own may not have: so a private journald with
# persistent storage, in a private mount namespace, and the handler run there directly (with a pidfd, as %F) for a
# live process of uid 4242 (dump mode 1), then for a non-dumpable one (dump mode 2: the entry stays root's).
head -c 65536 /dev/urandom > "$T/in"
cat > "$T/ns.sh" <<EOS
. "$TOP/tests/e2e/lib.sh"
start_journald
mkdir -p /var/log/journal && journalctl --flush >/dev/null 2>&1
for mode in 1 2; do
	setpriv --reuid=4242 --regid=4242 --clear-groups sleep 30 & p=\$!
	at_exit "kill \$p 2>/dev/null"
	"$WITHPIDFD" \$p "$CORESINK" --config "$T/c.conf" \$p 4242 4242 11 "\$(date +%s)" "$UNLIMITED" "\$(hostname)" \
		sleep \$mode 3 < "$T/in"
	e=\$(journal_entry \$p) || fail "dump mode \$mode: no entry"
	userjournal=\$(find /var/log/journal -name 'user-4242*.journal' | head -n 1)
	mine=\$(journalctl --no-pager --file "\${userjournal:-/nonexistent}" -o export "COREDUMP_PID=\$p" 2>/dev/null | tr -d '\\0')
	check "dump mode \$mode: COREDUMP_UID=4242" has_line "\$e" "COREDUMP_UID=4242"
	if [ \$mode = 1 ]; then
		check "dumpable: sent as the user (_UID=4242)" has_line "\$e" "_UID=4242"
		check "dumpable: in the user's own journal file (\${userjournal:-none})" test -n "\$mine"
	else
		check "non-dumpable: sent as root, not handed to the user" has_line "\$e" "_UID=0"
		check "non-dumpable: not in the user's journal file" test -z "\$mine"
	fi
done
EOS
in_private_ns "$T/ns.sh" || fail "the private namespace's checks"

# Not dumpable by its owner (it changed credentials, as a setuid program or a daemon dropping privileges does), a
# real crash: dumped only with fs.suid_dumpable=2, for root: root's entry, 0600 core.
old=$(cat /proc/sys/fs/suid_dumpable)
at_exit "echo $old > /proc/sys/fs/suid_dumpable"
echo 2 > /proc/sys/fs/suid_dumpable
rm -rf "$T/cores"
{ ( ulimit -c unlimited; exec "$CRASHER" -u 4242 8 ) & p=$!; wait $p; } 2>/dev/null
e=$(journal_entry "$p") || fail "no entry for the non-dumpable crash"
core=$(only_file "$T/cores") || exit 1
check "non-dumpable: the core is root's only (0600)" test "$(stat -c '%a %u' "$core")" = "600 0"
check "non-dumpable: COREDUMP_UID is still the user's" has_line "$e" "COREDUMP_UID=4242"
check "non-dumpable: COREDUMP_DUMPABLE=2" has_line "$e" "COREDUMP_DUMPABLE=2"
check "non-dumpable: the entry is sent as root, not handed to the user" has_line "$e" "_UID=0"
