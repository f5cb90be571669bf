#!/bin/sh
# Checks that what coresink needs to build (or, with --test, to test; with --deb, to package; with --vm, to boot
# Debian's kernels for make check-vm) is there, the way the build finds it:
# pkg-config for the libraries, PATH for the tools. Nothing is installed when all is there, so a packager's build in
# a clean chroot with its build dependencies, or a Fedora or Arch machine with the libraries, never reaches apt-get.
# Only what is really missing is installed, on Debian as root, and it is said first; elsewhere it is named.
# Exit codes: 0 all present (or installed), 1 missing and not installable here.
set -eu

# One need a line: how to tell it is there, the Debian package that brings it, what it is.
build_needs='
cmd:cc build-essential a C compiler
cmd:pkg-config pkg-config pkg-config
pc:libsystemd libsystemd-dev libsystemd (sd-journal)
pc:libdw libdw-dev elfutils libdw (stack traces)
pc:libelf libelf-dev elfutils libelf (stack traces)
pc:libacl libacl1-dev libacl (read access for the crashing user)
pc:libzstd libzstd-dev libzstd (compression)
pc:libseccomp libseccomp-dev libseccomp (the analysis sandbox)
pc:libsodium libsodium-dev libsodium (SHA-256: the record of an entry on its core, a seal; Encrypt=: age)
pc:json-c libjson-c-dev libjson-c (container runtimes JSON: the names of a container and its pod)
pc:sqlite3 libsqlite3-dev libsqlite3 (the podman 5 database: a pod name)
pc:libdebuginfod libdebuginfod-dev libdebuginfod (debug info by build-id, DebuginfodURLs=)'
test_needs='
pc:check check the Check unit test library
cmd:valgrind valgrind valgrind
cmd:gdb gdb gdb
cmd:clang clang clang (libFuzzer and sanitizers)
fuzzer:clang libclang-rt-14-dev the libFuzzer runtime
cmd:mkfs.ext4 e2fsprogs mkfs.ext4
cmd:mkfs.xfs xfsprogs mkfs.xfs
cmd:mkfs.btrfs btrfs-progs mkfs.btrfs
cmd:strace strace strace
cmd:g++ g++ a C++ compiler (t-signature: an uncaught exception)
cmd:rustc rustc the Rust compiler (t-signature: a panic)
cmd:groff groff-base groff
cmd:coredumpctl systemd-coredump coredumpctl
file:/lib/systemd/systemd-journald systemd systemd-journald
cmd:getfattr attr getfattr
cmd:getfacl acl getfacl
cmd:setpriv util-linux setpriv
cmd:newuidmap uidmap newuidmap (rootless podman: t-pods)
cmd:gnuplot gnuplot-nox gnuplot
cmd:jq jq jq
cmd:systemd-nspawn systemd-container systemd-nspawn (t-systemd boots systemd as PID 1)
cmd:mmdebstrap mmdebstrap mmdebstrap (the Debian root t-systemd boots)
cmd:zstd zstd zstd (coresink-bench reads compressed cores back)
cmd:age age age (t-encrypt: encrypted cores read back, and written for coresinkctl)
cmd:prometheus-node-exporter prometheus-node-exporter node_exporter (t-metrics: it serves MetricsFile=)
cmd:promtool prometheus promtool (t-metrics: the exposition linted as Prometheus does)
cmd:curl curl curl (t-metrics: node_exporter scraped)
file:/lib/systemd/systemd-journal-remote systemd-journal-remote systemd-journal-remote (t-storage, the fleet recipe)
cmd:rclone rclone rclone (t-upload, the fleet recipe)
cmd:piuparts piuparts piuparts (t-package)
cmd:debuginfod debuginfod the elfutils debuginfod server (t-debuginfod)
cmd:eu-stack elfutils eu-stack (t-keepmodules: elfutils over the kept modules)
cmd:scan-build clang-tools scan-build (make analyze: the clang static analyzer)
cmd:cppcheck cppcheck cppcheck (make analyze)
cmd:podman podman podman (t-pods: a pod from podman kube play)
cmd:runc runc runc (t-pods: the runtime podman is given, as crun refuses hybrid cgroups)
file:/usr/libexec/podman/catatonit catatonit catatonit (t-pods: the pause process of a podman pod)
file:/usr/bin/docker docker.io Docker (t-pods)
cmd:dockerd docker.io dockerd (t-pods)
cmd:ctr containerd ctr (t-pods: a plain containerd task)
py:grpc python3-grpcio Python gRPC (t-pods: a CRI client, as the kubelet)
py:grpc_tools python3-grpc-tools Python protoc (t-pods: the CRI client from tests/helpers/cri.proto)
py:fusepy python3-fusepy Python FUSE (t-fairness: a file system that answers a dump slowly)
cmd:inotifywait inotify-tools inotifywait (t-admin-attack: a user watching the core directory)'

# What 'make deb' builds and checks the Debian package with (make check's t-package runs it).
deb_needs='
cmd:dpkg-buildpackage dpkg-dev dpkg-buildpackage
cmd:dh debhelper debhelper
cmd:fakeroot fakeroot fakeroot
cmd:lintian lintian lintian'

# What make check-vm boots Debian's own kernels with (mmdebstrap is a test need too).
vm_needs='
cmd:qemu-system-x86_64 qemu-system-x86 qemu-system-x86_64 (make check-vm)
cmd:mmdebstrap mmdebstrap mmdebstrap (make check-vm builds the images)
cmd:mkfs.ext4 e2fsprogs mkfs.ext4 (make check-vm)'

needs=$build_needs
case ${1:-} in
--vm) needs="$build_needs$deb_needs$vm_needs" ;;
--test) needs="$build_needs$test_needs$deb_needs" ;;
--deb) needs="$build_needs$deb_needs" ;;
esac

present() {
	case $1 in
	cmd:*) command -v "${1#cmd:}" >/dev/null 2>&1 ;;
	pc:*) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "${1#pc:}" ;;
	file:*) [ -e "${1#file:}" ] ;;
	# libFuzzer's runtime is a file of clang's own, not a package clang always pulls in.
	fuzzer:*) command -v clang >/dev/null 2>&1 && [ -e "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ] ;;
	# Debian's Python modules, for Debian's python3 (not one earlier in PATH).
	py:*) /usr/bin/python3 -c "import ${1#py:}" >/dev/null 2>&1 ;;
	esac
}

missing="" pkgs=""
newline='
'
IFS=$newline
for line in $needs; do
	[ -n "$line" ] || continue
	IFS=' ' read -r test pkg what <<-EOL
	$line
	EOL
	present "$test" && continue
	missing="$missing, $what"
	case " $pkgs " in *" $pkg "*) ;; *) pkgs="$pkgs $pkg" ;; esac
done
unset IFS
[ -z "$missing" ] && exit 0

echo "coresink: missing: ${missing#, }" >&2
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "coresink: on Debian, install as root: apt-get install$pkgs" >&2
	echo "coresink: elsewhere, install your distribution's packages for these (e.g. systemd-devel and check-devel on Fedora)" >&2
	exit 1
fi
echo "coresink: installing the Debian packages:$pkgs" >&2
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
apt-get install -y -qq --no-install-recommends $pkgs >&2
