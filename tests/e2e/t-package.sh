#!/bin/bash
# The Debian package: built by dpkg-buildpackage (make deb), lintian-clean, piuparts' install and purge test passed,
# and its maintainer scripts on this very machine beside Debian's systemd-coredump: the package's install takes
# kernel.core_pattern from systemd-coredump, keeps its values, takes the pattern back when systemd-coredump's package
# is installed again (a dpkg trigger), keeps an edited /etc/coresink.conf and the stored cores across an upgrade,
# gives systemd-coredump's values back exactly on removal, and its purge leaves nothing. This machine runs no
# systemd as PID 1, so the package chooses pipe mode here; socket mode under each Debian release's own systemd is
# t-releases'. Every package change is undone at exit (purge, then systemd-coredump's package state as it was).
# tier: fast (make check, and make check-all); piuparts: make check-all, in its static lane (tests/e2e/piuparts.sh)
. "$(dirname "$0")/lib.sh"
need_root "it installs and purges the package on this machine and sets kernel.core_pattern"
[ "$(os_release ID)" = debian ] || skip "a Debian package: not Debian"
scratch
package_debs
ok "built: $(basename "$DEB") and $(basename "$DEB2")"

# 1. lintian (make deb already failed on an error or a warning; this says what it said).
lint=$(lintian --fail-on error,warning --show-overrides "$DEB" 2>&1 | grep -v 'running with root privileges')
check "lintian: no error, no warning; overridden: $(printf '%s\n' "$lint" | grep -c '^O:')" \
	test -z "$(printf '%s\n' "$lint" | grep -E '^[EW]:')"

# 2. piuparts on Debian 12, 13 and unstable: tests/e2e/piuparts.sh, which make check-all runs in its static lane,
# beside this tier (it sets nothing of this host's).

# 3. Beside systemd-coredump, on this machine.
dpkg -s systemd-coredump 2> /dev/null | grep -q '^Status: install ok installed' ||
	skip "systemd-coredump is not installed here (make check's dependencies install it)"
[ ! -e /etc/coresink.conf ] || skip "/etc/coresink.conf exists: not the package's"
dpkg -s coresink > /dev/null 2>&1 && skip "the coresink package is installed here already"
saved_sysctl=""
for k in kernel/core_pattern kernel/core_pipe_limit fs/suid_dumpable; do
	saved_sysctl="$saved_sysctl printf '%s\\n' '$(cat /proc/sys/$k)' > /proc/sys/$k;"
done
at_exit "$saved_sysctl"
users_before=$(grep -cE '^coresink-(analysis|upload|debuginfod):' /etc/passwd)
at_exit "[ $users_before -eq 3 ] || { for u in analysis upload debuginfod; do userdel coresink-\$u; groupdel coresink-\$u; done; } 2>/dev/null"
at_exit "dpkg --purge coresink > /dev/null 2>&1"
# Where systemd-coredump's package leaves the machine at boot: its sysctl file applied.
/lib/systemd/systemd-sysctl /usr/lib/sysctl.d/50-coredump.conf || fail "applying systemd-coredump's sysctl file"
theirs=$(cat /proc/sys/kernel/core_pattern) theirs_limit=$(cat /proc/sys/kernel/core_pipe_limit)
check "systemd-coredump owns kernel.core_pattern: $theirs, core_pipe_limit $theirs_limit" has "$theirs" systemd-coredump

# owner: who owns kernel.core_pattern now, for the log. owned: whether it is the installed package's handler.
owned() { matches "$(cat /proc/sys/kernel/core_pattern)" '^\|/usr/libexec/coresink '; }
owner() { case $(cat /proc/sys/kernel/core_pattern) in *coresink*) echo coresink ;; *systemd-coredump*) echo systemd-coredump ;; *) cat /proc/sys/kernel/core_pattern ;; esac; }
dpkg -i "$DEB" > "$T/install.log" 2>&1 || { cat "$T/install.log"; fail "dpkg -i $DEB"; }
said=$(grep '^coresink:' "$T/install.log")
check "install: coresink owns kernel.core_pattern ($(owner)); it said: $said" owned
check "in pipe mode, and why (no systemd as PID 1 here)" has "$said" "enabled in pipe mode (socket mode needs systemd"
check "kernel.core_pipe_limit is coresink's: $(cat /proc/sys/kernel/core_pipe_limit)" \
	test "$(cat /proc/sys/kernel/core_pipe_limit)" = 128
check "systemd-coredump's values saved to give back" all_of "$(cat /var/lib/coresink.previous)" \
	"kernel.core_pattern=$theirs" "kernel.core_pipe_limit=$theirs_limit"
check "the users made by systemd-sysusers" test -n "$(id -u coresink-analysis 2>/dev/null)"
check "the core directory made by systemd-tmpfiles: $(stat -c '%a %U' /var/lib/coresink)" \
	test "$(stat -c '%a %U' /var/lib/coresink)" = "755 root"

# A real crash, through the installed handler.
start_journald
write_config /etc/coresink.conf "KeepFree=1%" "MaxUse=100%" "StackTrace=no"
edited=$(md5sum < /etc/coresink.conf)
crash_run "$CRASHER" 4
e=$(journal_entry "$CRASH_PID") || fail "no entry for the crash under the installed package"
core=$(field "$e" COREDUMP_FILENAME)
check "a crash stored by the installed handler: $core" all_of "$e" "CORESINK_RESULT=stored"
check "whole" "$PATCHECK" "$core" 4

# systemd-coredump's package installed again (as an upgrade would): its postinst takes the pattern; coresink's trigger
# takes it back and keeps systemd-coredump's values as the previous ones.
deb_coredump=$(ls /var/cache/apt/archives/systemd-coredump_*.deb 2>/dev/null | tail -n 1)
if [ -z "$deb_coredump" ]; then
	(cd "$T" && apt-get download -qq systemd-coredump > /dev/null 2>&1)
	deb_coredump=$(ls "$T"/systemd-coredump_*.deb 2>/dev/null | tail -n 1)
fi
[ -n "$deb_coredump" ] || skip "no systemd-coredump package file to install again (apt-get download failed)"
dpkg -i "$deb_coredump" > "$T/reinstall.log" 2>&1 || { cat "$T/reinstall.log"; fail "dpkg -i systemd-coredump"; }
said=$(grep '^coresink:' "$T/reinstall.log" | tr '\n' ' ')
check "systemd-coredump installed again: coresink's trigger took the pattern back ($(owner)); it said: $said" owned
check "and systemd-coredump's values are still the ones to give back" all_of "$(cat /var/lib/coresink.previous)" \
	"kernel.core_pattern=$theirs" "kernel.core_pipe_limit=$theirs_limit"

# Upgrade: the edited config and the stored core stay, the handler stays in place.
dpkg -i "$DEB2" > "$T/upgrade.log" 2>&1 || { cat "$T/upgrade.log"; fail "dpkg -i $DEB2"; }
check "upgraded to $(dpkg-query -W -f '${Version}' coresink): the edited /etc/coresink.conf kept" \
	test "$(md5sum < /etc/coresink.conf)" = "$edited"
check "the stored core kept" "$PATCHECK" "$core" 4
check "coresink still owns kernel.core_pattern ($(owner))" owned
crash_run "$CRASHER" 2
check "a crash after the upgrade is stored" all_of "$(journal_entry "$CRASH_PID")" "CORESINK_RESULT=stored"

# Removal gives back systemd-coredump's values exactly; purge leaves nothing of coresink's.
dpkg -r coresink > "$T/remove.log" 2>&1 || { cat "$T/remove.log"; fail "dpkg -r coresink"; }
said=$(grep '^coresink:' "$T/remove.log" | tr '\n' ' ')
check "removed: systemd-coredump owns kernel.core_pattern again ($(owner)); it said: $said" \
	test "$(cat /proc/sys/kernel/core_pattern)" = "$theirs"
check "and kernel.core_pipe_limit is its $theirs_limit" test "$(cat /proc/sys/kernel/core_pipe_limit)" = "$theirs_limit"
check "the drop-in is gone, the config and the cores stay until purge" \
	test ! -e /etc/sysctl.d/60-coresink.conf -a -e /etc/coresink.conf -a -e "$core"
dpkg --purge coresink > "$T/purge.log" 2>&1 || { cat "$T/purge.log"; fail "dpkg --purge coresink"; }
left=$(ls -d /etc/coresink.conf /var/lib/coresink /var/lib/coresink.previous /etc/sysctl.d/60-coresink.conf \
	/etc/systemd/system/*/coresink* 2>/dev/null)
check "purged: nothing of coresink's left${left:+: $left}" test -z "$left"

# systemd 262's own server of the coredump socket held the pattern (@@/run/systemd/coredumpd/kernel) when coresink
# was installed; it is gone by the removal (on this kernel it cannot even run: systemd-coredump --manager wants
# PIDFD_INFO_COREDUMP_SIGNAL, Linux 6.19). Giving back a socket nobody serves would lose every crash: "core", said.
printf '@@/run/systemd/coredumpd/kernel\n' > /proc/sys/kernel/core_pattern
echo 16 > /proc/sys/kernel/core_pipe_limit
dpkg -i "$DEB" > "$T/install2.log" 2>&1 || { cat "$T/install2.log"; fail "dpkg -i $DEB (again)"; }
check "installed over systemd-coredumpd's pattern: coresink owns it ($(owner))" owned
dpkg --purge coresink > "$T/purge2.log" 2>&1 || { cat "$T/purge2.log"; fail "dpkg --purge coresink (again)"; }
said=$(grep '^coresink:' "$T/purge2.log" | tr '\n' ' ')
check "purged: no server at systemd-coredumpd's socket, so core_pattern is the kernel's core, and why: $said" \
	test "$(cat /proc/sys/kernel/core_pattern)" = core -a -n "$(printf '%s' "$said" | grep 'nothing serves the saved socket')"
check "core_pipe_limit given back: $(cat /proc/sys/kernel/core_pipe_limit)" test "$(cat /proc/sys/kernel/core_pipe_limit)" = 16
