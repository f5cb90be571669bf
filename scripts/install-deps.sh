#!/bin/sh
# Installs the Debian packages coresink needs to build and test, when they are missing.
# Exit codes: 0 all present (or installed), 1 missing and not installable here.
set -eu

pkgs="build-essential pkg-config libsystemd-dev check valgrind gdb systemd"
[ "${1:-}" = "--test" ] && pkgs="$pkgs e2fsprogs xfsprogs strace groff-base systemd-coredump attr clang libclang-rt-14-dev gnuplot-nox"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "coresink: missing packages:$missing" >&2
	echo "coresink: install them as root: apt-get install$missing" >&2
	exit 1
fi
echo "coresink: installing:$missing" >&2
# systemd-coredump's postinst (it brings coredumpctl) points these at itself: put back what was there.
saved=""
for k in kernel/core_pattern kernel/core_pipe_limit fs/suid_dumpable; do
	saved="$saved$k=$(cat /proc/sys/$k)
"
done
restore() {
	printf '%s' "$saved" | while IFS= read -r line; do
		printf '%s\n' "${line#*=}" > "/proc/sys/${line%%=*}"
	done
}
trap restore EXIT
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
