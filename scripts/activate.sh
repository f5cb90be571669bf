#!/bin/sh
# activate.sh: turns coresink on or off as the kernel's core handler, now and at boot.
# usage: activate.sh enable|disable DROPIN SYSCTLDIR STATEFILE
#   enable:  saves the live kernel.core_pattern and kernel.core_pipe_limit in STATEFILE (once: enabling twice keeps
#            the first saved values, unless another handler took kernel.core_pattern in between, such as
#            systemd-coredump when its package is installed: then its values are the ones to give back), copies
#            DROPIN (pipe mode, which every kernel takes) into SYSCTLDIR and applies it now. Then socket mode, live
#            only, when systemd runs coresink.socket and the kernel serves "@@" ('coresink --set-mode socket' asks
#            the kernel what it does: Linux 6.1 and 6.12 take "@@PATH" as a file name and would lose every crash);
#            coresink.socket makes the same switch at every boot. It says which mode, and why.
#   disable: removes the drop-in from SYSCTLDIR and writes the saved values back, exactly (but "core", the kernel's
#            default, for a saved "|HANDLER" that is no longer installed, a package removed since, or a saved "@@SOCKET"
#            nothing serves or this kernel cannot serve; systemd-coredumpd.service, stopped by enable, is started
#            again first); then removes STATEFILE.
# In a chroot (an image being built, piuparts, a package installed with dpkg --root) the live values are the host's,
# not this system's: enable only installs the drop-in (pipe mode), for the system's next boot, and disable removes it.
# Exit codes: 0 done, 100 usage, 111 system failure.
set -u
[ $# -eq 4 ] || { echo "usage: activate.sh enable|disable DROPIN SYSCTLDIR STATEFILE" >&2; exit 100; }
action=$1 dropin=$2 sysctldir=$3 state=$4
installed=$sysctldir/$(basename "$dropin")
die() { echo "coresink: $*" >&2; exit 111; }
[ "$(id -u)" -eq 0 ] || die "$action needs root"

# value KEY FILE: the value of a sysctl.d line, everything after the first '='.
value() { sed -n "s/^$1=//p" "$2" | tail -n 1; }

set_live() {
	printf '%s\n' "$1" > /proc/sys/kernel/core_pattern || die "cannot set kernel.core_pattern"
	printf '%s\n' "$2" > /proc/sys/kernel/core_pipe_limit || die "cannot set kernel.core_pipe_limit"
}

# Whether this runs in a chroot: its root is not that of PID 1, or of one of its own ancestors (the chroot(8), dpkg
# or piuparts that started it, outside). Ancestors are asked too because PID 1's root cannot always be read (a PID 1
# that even root may not ptrace, as in some sandboxes): ischroot(1) cannot tell there, and taking it for "not a
# chroot" let piuparts' chroots set the host's kernel.core_pattern. Where no root can be read, no chroot is seen.
chrooted() {
	me=$(stat -Lc %d:%i /) || return 1
	pid=$$
	while :; do
		root=$(stat -Lc %d:%i "/proc/$pid/root/" 2>/dev/null) && [ "$root" != "$me" ] && return 0
		[ "$pid" -gt 1 ] || return 1
		# An ancestor that cannot be read: PID 1 is asked last all the same.
		pid=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
		[ "${pid:-0}" -ge 1 ] 2>/dev/null || pid=1
	done
}

enable() {
	if chrooted; then
		install -D -m 0644 "$dropin" "$installed" || die "cannot install $installed"
		echo "coresink: in a chroot: $installed installed (pipe mode) for this system's next boot;" \
			"the live kernel.core_pattern is the host's and was left alone"
		return 0
	fi
	# kernel.core_pattern is the host's: the kernel runs a "|" handler in the host's namespaces and takes "@@" only
	# from the host's mount namespace. The host's crashes are never to be handed to a container: every one of them,
	# root's included, would be read by whoever runs that container. The kernel's own threads (kthreadd, pid 2) are
	# seen only from the host's pid namespace; systemd-detect-virt guesses from files such as /.dockerenv, which some
	# hosts have.
	if [ "$(cat /proc/2/comm 2>/dev/null)" != kthreadd ]; then
		die "in a container (no kernel threads in sight): kernel.core_pattern is the host's; enable coresink on the host" \
			"(its package or 'make enable'); a container's crashes are the host's handler's to store"
	fi
	[ -r "$dropin" ] || die "$dropin is missing: run 'make install' first"
	pattern=$(value kernel.core_pattern "$dropin")
	handler=$(target "$pattern")
	# Never point the kernel at a handler that is not there: every core would be lost.
	missing "$pattern" && die "$handler is not installed: run 'make install' first"
	live=$(cat /proc/sys/kernel/core_pattern)
	taken=""
	if [ -e "$state" ] && ! ours "$live" "$handler"; then
		echo "coresink: kernel.core_pattern was taken by another handler since coresink was enabled: $live;" \
			"'make disable' (or removing the package) gives it back"
		taken=yes
	fi
	if [ ! -e "$state" ] || [ -n "$taken" ]; then
		mkdir -p "$(dirname "$state")"
		{
			printf 'kernel.core_pattern=%s\n' "$live"
			printf 'kernel.core_pipe_limit=%s\n' "$(cat /proc/sys/kernel/core_pipe_limit)"
		} > "$state.tmp" && mv "$state.tmp" "$state" || die "cannot save the previous values in $state"
	fi
	# systemd-coredump's own server of the coredump socket (systemd 262, Linux 6.19) puts back the pattern it found
	# at boot when it stops, whenever that is: stopped now, once its pattern is saved. Its drop-in keeps it off at
	# boot while coresink is enabled.
	if [ -d /run/systemd/system ] && systemctl is-active -q systemd-coredumpd.service 2>/dev/null; then
		systemctl stop systemd-coredumpd.service &&
			echo "coresink: systemd-coredumpd.service stopped (it served kernel.core_pattern=$live); it stays off while coresink is enabled"
	fi
	limit=$(value kernel.core_pipe_limit "$dropin")
	# The drop-in is pipe mode on every kernel: no boot, 'sysctl --system' or older kernel booted back can then
	# leave the kernel writing cores to a file named "@@...". A pattern of ours left as "@@" where this kernel cannot
	# serve it is replaced here.
	install -D -m 0644 "$dropin" "$installed" || die "cannot install $installed"
	set_live "$pattern" "$limit"
	if why=$(socket_unavailable); then
		mode=$("$handler" --set-mode socket) || die "cannot set kernel.core_pattern"
	else
		mode="pipe mode ($why)"
	fi
	advice=""
	case $mode in pipe*) [ -n "$why" ] && takes_socket "$handler" && advice=$(socket_advice "$handler") ;; esac
	echo "coresink: enabled in $mode: kernel.core_pattern=$(cat /proc/sys/kernel/core_pattern)" \
		"(previous values saved in $state)"
	[ -z "$advice" ] || echo "$advice"
}

# target PATTERN: the program of a "|PROGRAM ARGS" pattern, the socket of an "@SOCKET" or "@@SOCKET" one, else nothing.
target() {
	case $1 in
	"|"*) t=${1#|}; echo "${t%% *}" ;;
	@*) t=${1#@}; echo "${t#@}" ;;
	esac
}

# missing PATTERN: whether the program or socket PATTERN names is not there.
missing() {
	case $1 in
	"|"*) [ ! -x "$(target "$1")" ] ;;
	@*) [ ! -S "$(target "$1")" ] ;;
	*) return 1 ;;
	esac
}

# ours PATTERN HANDLER: whether PATTERN is one coresink set: its pipe pattern (|HANDLER ...) or its socket's, "@@"
# and Socket= of its configuration (whatever this kernel can serve: a pattern left from a newer one is ours too).
ours() {
	case $1 in "|$2 "*) return 0 ;; @@*) ;; *) return 1 ;; esac
	[ "$1" = "@@$("$2" --check-config 2>/dev/null | sed -n 's/^Socket=//p')" ]
}

# unserved PATTERN HANDLER: whether PATTERN is "@@..." on a kernel that does not serve it: a file name there.
unserved() {
	case $1 in @@*) ! takes_socket "$2" ;; *) return 1 ;; esac
}

# takes_socket HANDLER: whether this kernel serves the coredump socket's "@@" (the handler asks it).
takes_socket() {
	"$1" --core-pattern --socket > /dev/null 2>&1
}

# What to do on a kernel that serves "@@" where pipe mode was chosen for want of systemd.
socket_advice() {
	echo "coresink: this kernel can run socket mode, which loses no crash in a storm: the kernel queues crashes on"
	echo "coresink: the socket instead of dropping those past kernel.core_pipe_limit (pipe mode drops them, and"
	echo "coresink: coresink reports how many). Without systemd: run '$1 --serve' as root under your service"
	echo "coresink: manager (it binds Socket= of coresink.conf); once it listens, '$1 --set-mode socket' switches"
	echo "coresink: to it (at every boot, after sysctl), and '$1 --set-mode pipe' back before it stops."
}

# Prints nothing and succeeds when socket mode may be tried: systemd runs as PID 1 and coresink.socket is active.
# Otherwise prints why not, and fails.
socket_unavailable() {
	if [ ! -d /run/systemd/system ]; then
		echo "socket mode needs systemd as PID 1 to run coresink.socket"
		return 1
	fi
	if ! systemctl is-active -q coresink.socket 2>/dev/null; then
		echo "socket mode needs coresink.socket active: systemctl enable --now coresink.socket"
		return 1
	fi
}

disable() {
	rm -f "$installed"
	if [ ! -e "$state" ]; then
		echo "coresink: not enabled ('make enable' or the package: $state is missing): nothing to restore"
		return 0
	fi
	if chrooted; then
		echo "coresink: in a chroot: $installed removed; the live kernel.core_pattern is the host's and was left alone"
		return 0
	fi
	pattern=$(value kernel.core_pattern "$state")
	# systemd-coredump's own socket server (systemd 262), stopped when coresink was enabled: started again now that
	# the drop-in is gone (its condition), its register then sets its own pattern, the saved one.
	case $pattern in @@*)
		if missing "$pattern" && [ -d /run/systemd/system ] && systemctl cat systemd-coredumpd.service > /dev/null 2>&1 &&
			systemctl start systemd-coredumpd.service; then
			echo "coresink: systemd-coredumpd.service started again: it serves $(target "$pattern")"
		fi ;;
	esac
	# A handler removed since (a package), or a socket's server that is gone (systemd-coredumpd, stopped when
	# coresink was enabled): every crash would be lost on it.
	if missing "$pattern" || unserved "$pattern" "$(target "$(value kernel.core_pattern "$dropin")")"; then
		case $pattern in
		"|"*) echo "coresink: the saved handler $(target "$pattern") is no longer installed: restoring the kernel's" \
			"default, core" ;;
		*) echo "coresink: nothing serves the saved socket $(target "$pattern") on this kernel: restoring the kernel's default," \
			"core (systemd-coredump's server sets its own when started: systemctl start systemd-coredumpd.service)" ;;
		esac
		pattern=core
	fi
	set_live "$pattern" "$(value kernel.core_pipe_limit "$state")"
	rm -f "$state"
	echo "coresink: disabled: kernel.core_pattern=$(cat /proc/sys/kernel/core_pattern)"
}

case $action in
enable) enable ;;
disable) disable ;;
*) echo "usage: activate.sh enable|disable DROPIN SYSCTLDIR STATEFILE" >&2; exit 100 ;;
esac
