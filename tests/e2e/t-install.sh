#!/bin/bash
# Installation and docs: the staged tree, uninstall, every key documented where the parser knows it, man pages that
# render cleanly, --help matching the synopsis; as root, enable/disable round trips on the live kernel settings.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
scratch
mk() { make -s -C "$TOP" "$@"; }
value_of() { sed -n "s/^$1=//p" "$2" | tail -n 1; }

# The staged tree, exactly.
live_before="$(cat /proc/sys/kernel/core_pattern) $(cat /proc/sys/kernel/core_pipe_limit)"
mk install DESTDIR="$T/stage" PREFIX=/usr B="$B" > /dev/null || fail "make install DESTDIR"
tree=$(cd "$T/stage" && find . -type f -printf '%m %p\n' | sort)
expected="644 ./etc/coresink.conf
644 ./usr/lib/systemd/system/coresink-net.socket
644 ./usr/lib/systemd/system/coresink-net@.service
644 ./usr/lib/systemd/system/coresink-upload.service
644 ./usr/lib/systemd/system/coresink-upload.timer
644 ./usr/lib/systemd/system/coresink.service
644 ./usr/lib/systemd/system/coresink.socket
644 ./usr/lib/systemd/system/systemd-coredump-register.service.d/coresink.conf
644 ./usr/lib/systemd/system/systemd-coredumpd.service.d/coresink.conf
644 ./usr/lib/sysusers.d/coresink.conf
644 ./usr/lib/tmpfiles.d/coresink.conf
644 ./usr/share/bash-completion/completions/coresinkctl
644 ./usr/share/coresink/60-coresink.conf
644 ./usr/share/doc/coresink/examples/collect.d/unit-log
644 ./usr/share/doc/coresink/examples/notify.d/mail
644 ./usr/share/doc/coresink/examples/notify.d/webhook
644 ./usr/share/man/man1/coresink-bench.1
644 ./usr/share/man/man1/coresinkctl.1
644 ./usr/share/man/man5/coresink.conf.5
644 ./usr/share/man/man8/coresink.8
755 ./usr/bin/coresink-bench
755 ./usr/bin/coresinkctl
755 ./usr/libexec/coresink
755 ./usr/libexec/coresink-upload-rclone
755 ./usr/share/coresink/activate.sh"
check "make install DESTDIR stages exactly the expected files and modes" test "$tree" = "$expected"
check "and changes no live setting" \
	test "$(cat /proc/sys/kernel/core_pattern) $(cat /proc/sys/kernel/core_pipe_limit)" = "$live_before"
pattern=$("$CORESINK" --handler /usr/libexec/coresink --core-pattern)
check "the drop-in's pattern is the handler's own --core-pattern for the installed path" \
	has_line "$(cat "$T/stage/usr/share/coresink/60-coresink.conf")" "kernel.core_pattern=$pattern"
check "the drop-in sets kernel.core_pipe_limit" has_line "$(cat "$T/stage/usr/share/coresink/60-coresink.conf")" "kernel.core_pipe_limit=128"
check "the service runs the installed handler's server" \
	has_line "$(cat "$T/stage/usr/lib/systemd/system/coresink.service")" "ExecStart=/usr/libexec/coresink --serve"
check "the socket unit listens where coresink's Socket= default is" has_line \
	"$(cat "$T/stage/usr/lib/systemd/system/coresink.socket")" "ListenStream=$("$CORESINK" --config /dev/null --check-config | sed -n 's/^Socket=//p')"
check "the socket unit switches to socket mode once it listens, and back before it stops" bash -c \
	"grep -qx 'ExecStartPost=-/usr/libexec/coresink --set-mode socket' '$T/stage/usr/lib/systemd/system/coresink.socket' &&
	 grep -qx 'ExecStopPre=-/usr/libexec/coresink --set-mode pipe' '$T/stage/usr/lib/systemd/system/coresink.socket'"
if command -v systemd-analyze > /dev/null; then
	# verify wants the binary the unit starts: point it at the built one.
	mkdir -p "$T/units"
	sed "s#/usr/libexec/coresink#$CORESINK#" "$T/stage/usr/lib/systemd/system/coresink.socket" > "$T/units/coresink.socket"
	sed "s#/usr/libexec/coresink#$CORESINK#" "$T/stage/usr/lib/systemd/system/coresink.service" > "$T/units/coresink.service"
	cp "$T/stage/usr/lib/systemd/system/coresink-net.socket" "$T/units/"
	sed "s#/usr/libexec/coresink#$CORESINK#" "$T/stage/usr/lib/systemd/system/coresink-net@.service" > "$T/units/coresink-net@.service"
	check "systemd-analyze verify accepts the units (the server, its socket, the door and its socket)" \
		systemd-analyze verify --man=no "$T/units/coresink.socket" "$T/units/coresink.service" \
		"$T/units/coresink-net.socket" "$T/units/coresink-net@.service"
	check "the server names its door to the network" \
		has_line "$(cat "$T/stage/usr/lib/systemd/system/coresink.service")" "Environment=CORESINK_NETDOOR=/run/coresink/net.socket"
fi
mk uninstall DESTDIR="$T/stage" PREFIX=/usr B="$B" > /dev/null || fail "make uninstall DESTDIR"
check "make uninstall removes every file install put there" test -z "$(find "$T/stage" -type f)"

# Every key: the parser's table (--check-config prints it), conf/coresink.conf and coresink.conf(5) agree.
parser=$("$CORESINK" --config /dev/null --check-config | sed -n 's/^\([A-Za-z]*\)=.*/\1/p' | sort)
documented=$(sed -n 's/^#\([A-Za-z]*\)=.*/\1/p' "$TOP/conf/coresink.conf" | sort)
manned=$(sed -n 's/^\.BI \([A-Za-z]*\)= .*/\1/p' "$TOP/man/coresink.conf.5" | sort)
check "conf/coresink.conf documents exactly the keys the parser knows: $(echo $parser)" test "$parser" = "$documented"
check "coresink.conf(5) documents exactly those keys" test "$parser" = "$manned"
sed 's/^#\([A-Za-z]*=\)/\1/' "$TOP/conf/coresink.conf" > "$T/uncommented.conf"
check "every documented default parses cleanly" bash -c "'$CORESINK' --config '$T/uncommented.conf' --check-config >/dev/null"

# The man pages render without a warning; --help and the synopsis name the same options.
for m in "$TOP/man/coresink.8" "$TOP/man/coresink.conf.5" "$TOP/man/coresink-bench.1" "$TOP/man/coresinkctl.1"; do
	check "$(basename "$m") renders without warnings" test -z "$(groff -man -Tutf8 -ww -z "$m" 2>&1)"
done
help_opts=$("$CORESINK" --help | grep -o -- '--[a-z-]*' | sort -u)
man_opts=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$TOP/man/coresink.8" | grep -o -- '\\-\\-[a-z\\-]*' |
	sed 's/\\//g' | sort -u)
check "--help and coresink(8)'s synopsis name the same options: $(echo $help_opts)" test "$help_opts" = "$man_opts"
bench_help=$("$B/coresink-bench" --help | grep -o -- '--[a-z-]*' | sort -u)
bench_man=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$TOP/man/coresink-bench.1" | grep -o -- '\\-\\-[a-z\\-]*' |
	sed 's/\\//g' | sort -u)
check "coresink-bench --help and its synopsis name the same options" test "$bench_help" = "$bench_man"
ctl_verbs=$("$B/coresinkctl" --help | grep -oE 'coresinkctl (\[OPTIONS\] )?\[?[a-z-]+' | awk '{ print $NF }' | tr -d '[' |
	grep -v '^-' | sort -u)
ctl_synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$TOP/man/coresinkctl.1" | sed 's/\\-/-/g')
in_synopsis() { for v in $ctl_verbs; do grep -qE "^(\.B|\.RB \[) (coresinkctl )?$v( |$)" <<< "$ctl_synopsis" || return 1; done; }
check "coresinkctl(1)'s synopsis names every verb of --help: $(echo $ctl_verbs)" in_synopsis
# man_has_options MAN OPTION...: the page names each option (groff writes its dashes as \-).
man_has_options() {
	local man=$1 o; shift
	for o in "$@"; do grep -qF -- "$(sed 's/-/\\-/g' <<< "$o")" "$man" || { echo "not in $(basename "$man"): $o"; return 1; }; done
}
check "coresinkctl(1) documents every option --help names" man_has_options "$TOP/man/coresinkctl.1" \
	$("$B/coresinkctl" --help | grep -o -- '--[a-z-]*' | sort -u)

# Live: enable and disable round trip, with a real install under a scratch prefix.
need_root "enable/disable change kernel.core_pattern"
old_pattern=$(cat /proc/sys/kernel/core_pattern)
old_limit=$(cat /proc/sys/kernel/core_pipe_limit)
at_exit "printf '%s\n' '$old_pattern' > /proc/sys/kernel/core_pattern; echo $old_limit > /proc/sys/kernel/core_pipe_limit"
before='core.%e.%p with spaces, kept exactly'
printf '%s\n' "$before" > /proc/sys/kernel/core_pattern
echo 3 > /proc/sys/kernel/core_pipe_limit
vars=(PREFIX="$T/prefix" SYSCONFDIR="$T/etc" SYSCTLDIR="$T/sysctl.d" STATEFILE="$T/state/previous" B="$T/build")

mk enable "${vars[@]}" > "$T/out" 2>&1
check "enable refuses before install (the handler is missing)" test $? -ne 0
check "and leaves the pattern alone" test "$(cat /proc/sys/kernel/core_pattern)" = "$before"
# The analysis and upload users, when tests/e2e/run.sh made them for the tests (one the machine had is left
# alone): taken away, and made again by the live install.
if [ -n "${CORESINK_TEST_USERS_MADE:-}" ]; then
	for u in $CORESINK_TEST_USERS_MADE; do
		userdel "$u" && { groupdel "$u" 2>/dev/null; true; } || fail "userdel $u"
	done
	at_exit "sh '$TOP/scripts/add-user.sh' '$TOP/systemd/coresink.sysusers' > /dev/null"
fi
mk install "${vars[@]}" > /dev/null || fail "make install PREFIX"
for u in coresink-analysis coresink-upload coresink-debuginfod; do
	user=$(grep "^$u:" /etc/passwd)
	check "a live install makes $u: a system uid without a shell ($user)" \
		bash -c "[ \"\$(echo '$user' | cut -d: -f3)\" -lt 1000 ] && echo '$user' | grep -q ':/usr/sbin/nologin$'"
done
write_config "$T/etc/coresink.conf" "Directory=$T/cores" "KeepFree=64M"
mk enable "${vars[@]}" > "$T/out" 2>&1 || { cat "$T/out"; fail "make enable"; }
if [ -d /run/systemd/system ]; then
	check "enable says which mode it chose" matches "$(cat "$T/out")" "enabled in (socket|pipe) mode"
else
	check "without systemd as PID 1, enable chooses pipe mode and says why" \
		has "$(cat "$T/out")" "enabled in pipe mode (socket mode needs systemd as PID 1"
	if "$T/prefix/libexec/coresink" --core-pattern --socket > /dev/null 2>&1; then
		check "and, as this kernel serves @@, says how to run socket mode without systemd" \
			has "$(cat "$T/out")" "$T/prefix/libexec/coresink --serve' as root under your service"
	fi
fi
check "enable points the kernel at the installed handler" \
	test "$(cat /proc/sys/kernel/core_pattern)" = "|$T/prefix/libexec/coresink %P %u %g %s %t %c %h %e %d %F %I"
check "and sets kernel.core_pipe_limit=128" test "$(cat /proc/sys/kernel/core_pipe_limit)" = 128
check "and installs the drop-in for boot" test -f "$T/sysctl.d/60-coresink.conf"
check "which holds pipe mode, whatever mode is live: every kernel takes it" \
	test "$(value_of kernel.core_pattern "$T/sysctl.d/60-coresink.conf")" = \
	"|$T/prefix/libexec/coresink %P %u %g %s %t %c %h %e %d %F %I"
crash 8
check "a crash is captured by the installed handler" test -n "$(only_file "$T/cores")"
saved=$(cat "$T/state/previous")
mk enable "${vars[@]}" > /dev/null || fail "make enable, twice"
check "enabling twice keeps the first saved values" test "$(cat "$T/state/previous")" = "$saved"
mk uninstall "${vars[@]}" > /dev/null 2>&1
check "uninstall refuses while enabled" test -x "$T/prefix/libexec/coresink"
mk disable "${vars[@]}" > /dev/null || fail "make disable"
check "disable restores the previous pattern exactly" test "$(cat /proc/sys/kernel/core_pattern)" = "$before"
check "and the previous kernel.core_pipe_limit" test "$(cat /proc/sys/kernel/core_pipe_limit)" = 3
check "and removes the drop-in and the saved state" test ! -e "$T/sysctl.d/60-coresink.conf" -a ! -e "$T/state/previous"
check "disable again changes nothing" bash -c "make -s -C '$TOP' disable ${vars[*]} >/dev/null && test \"\$(cat /proc/sys/kernel/core_pattern)\" = '$before'"
# Another handler takes kernel.core_pattern while coresink is enabled, as installing systemd-coredump's package does
# (its 50-coredump.conf, applied by its postinst): enabling again saves that handler's values, so that disable gives
# them back, not those from before the first enable.
mk enable "${vars[@]}" > /dev/null || fail "make enable, after disable"
other='|/lib/systemd/systemd-coredump %P %u %g %s %t 9223372036854775808 %h'
printf '%s\n' "$other" > /proc/sys/kernel/core_pattern
echo 16 > /proc/sys/kernel/core_pipe_limit
mk enable "${vars[@]}" > "$T/out" 2>&1 || fail "make enable, after another handler"
check "enable after another handler took core_pattern says so" has "$(cat "$T/out")" "taken by another handler"
check "and takes it back" test "$(cat /proc/sys/kernel/core_pattern)" != "$other"
mk disable "${vars[@]}" > /dev/null || fail "make disable"
check "disable then gives that handler its pattern back" test "$(cat /proc/sys/kernel/core_pattern)" = "$other"
check "and its kernel.core_pipe_limit" test "$(cat /proc/sys/kernel/core_pipe_limit)" = 16
mk uninstall "${vars[@]}" > /dev/null || fail "make uninstall"
check "uninstall after disable removes the handler" test ! -e "$T/prefix/libexec/coresink"
