#!/bin/sh
# activate.sh: turns coresink on or off as the kernel's core handler, now and at boot.
# usage: activate.sh enable|disable DROPIN SYSCTLDIR STATEFILE
#   enable:  saves the live kernel.core_pattern and kernel.core_pipe_limit in STATEFILE (once: enabling twice keeps
#            the first saved values), copies DROPIN into SYSCTLDIR and applies it now.
#   disable: removes the drop-in from SYSCTLDIR and writes the saved values back, exactly; then removes STATEFILE.
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

enable() {
	[ -r "$dropin" ] || die "$dropin is missing: run 'make install' first"
	pattern=$(value kernel.core_pattern "$dropin")
	handler=${pattern#|}
	handler=${handler%% *}
	# Never point the kernel at a handler that is not there: every core would be lost.
	[ -x "$handler" ] || die "$handler is not installed: run 'make install' first"
	if [ ! -e "$state" ]; then
		mkdir -p "$(dirname "$state")"
		{
			printf 'kernel.core_pattern=%s\n' "$(cat /proc/sys/kernel/core_pattern)"
			printf 'kernel.core_pipe_limit=%s\n' "$(cat /proc/sys/kernel/core_pipe_limit)"
		} > "$state.tmp" && mv "$state.tmp" "$state" || die "cannot save the previous values in $state"
	fi
	install -D -m 0644 "$dropin" "$installed" || die "cannot install $installed"
	set_live "$pattern" "$(value kernel.core_pipe_limit "$dropin")"
	echo "coresink: enabled: kernel.core_pattern=$pattern (previous values saved in $state)"
}

disable() {
	rm -f "$installed"
	if [ ! -e "$state" ]; then
		echo "coresink: not enabled by 'make enable' ($state is missing): nothing to restore"
		return 0
	fi
	set_live "$(value kernel.core_pattern "$state")" "$(value kernel.core_pipe_limit "$state")"
	rm -f "$state"
	echo "coresink: disabled: kernel.core_pattern=$(cat /proc/sys/kernel/core_pattern)"
}

case $action in
enable) enable ;;
disable) disable ;;
*) echo "usage: activate.sh enable|disable DROPIN SYSCTLDIR STATEFILE" >&2; exit 100 ;;
esac
