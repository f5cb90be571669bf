#!/bin/bash
# Crashes in containers: the stack trace is made from the container's own files, never from the host's, and the
# entry says which container. A Debian root (debian_root) holds a program and a library that exist only there; the
# host holds, at the library's path, another build of it (another build-id). Crashed inside unshare + chroot and
# inside systemd-nspawn, in pipe mode and in socket mode, and in a user-namespaced container: the trace names the
# container's functions, and gdb, with the container's root as its sysroot, shows the same frames. A container
# that turns its library's directory into a symlink out of its root, after loading the library, does not lead the
# analysis out: the host's copy it points at is never read.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and makes containers"
command -v gdb > /dev/null || skip "no gdb"
command -v unshare > /dev/null || skip "no unshare"
scratch
start_journald
ROOT=$T/root
debian_root "$ROOT"
# The same path inside the container and on the host: the host's file there is the decoy.
P=/opt/coresink-e2e.$$
at_exit "rm -rf '$P'"

# The programs, built here: a library that crashes, a caller, and the escape (below).
mkdir -p "$T/src" "$ROOT$P/lib" "$ROOT$P/bin" "$P/lib" "$T/escape"
cat > "$T/src/lib.c" <<'EOF'
int cs_inside_crash(volatile int *p)
{
	*p = 42;
	return *p;
}
EOF
cat > "$T/src/decoy.c" <<'EOF'
int cs_host_decoy(volatile int *p) { return p ? 1 : 2; }
int cs_inside_crash(volatile int *p) { return cs_host_decoy(p) + 7; }
EOF
cat > "$T/src/main.c" <<'EOF'
int cs_inside_crash(volatile int *p);
static int cs_inside_caller(void) { return cs_inside_crash((volatile int *)0); }
int main(void) { return cs_inside_caller(); }
EOF
# The escape's library crashes in a static function: its name is in the file's .symtab only, not in the memory
# the core holds (an exported one is found in the core's copy of .dynsym), so it shows only if the file was read.
cat > "$T/src/esc.c" <<'EOF'
static __attribute__((noinline)) int cs_escape_hidden(volatile int *p)
{
	*p = 42;
	return *p;
}
int cs_inside_crash(volatile int *p) { return cs_escape_hidden(p) + 1; }
EOF
# escape LIB DIR TARGET: loads LIB (in DIR/d), mounts a tmpfs over DIR whose d is a symlink to TARGET, then crashes
# in LIB. The core names DIR/d/LIB as it was mapped; looked up now, that path leads to TARGET. It crashes in a child:
# itself keeps the mount namespace (and so the tmpfs) alive after the crash, as a running container does, until it
# is killed; its pid is in /tmp/keeper.pid. TARGET "-": no mount, no symlink, no child.
cat > "$T/src/escape.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
/* The crash, in a child: this process stays, keeping the mount namespace, until it is killed. */
static int crash_in_child(int (*f)(volatile int *))
{
	FILE *pidfile;
	pid_t pid = fork();

	if (pid == 0)
		return f((volatile int *)0);
	pidfile = fopen("/tmp/keeper.pid", "w");
	if (pidfile) {
		fprintf(pidfile, "%d\n", (int)getpid());
		fclose(pidfile);
	}
	waitpid(pid, NULL, 0);
	pause();
	return 0;
}
int main(int argc, char **argv)
{
	char link[4096];
	void *h = argc == 4 ? dlopen(argv[1], RTLD_NOW) : NULL;
	int (*f)(volatile int *) = h ? (int (*)(volatile int *))dlsym(h, "cs_inside_crash") : NULL;

	if (!f)
		return 2;
	if (argv[3][0] == '-')
		return f((volatile int *)0);
	if (mount("none", argv[2], "tmpfs", 0, "mode=0755") < 0)
		return 2;
	snprintf(link, sizeof(link), "%s/d", argv[2]);
	if (symlink(argv[3], link) < 0)
		return 3;
	return crash_in_child(f);
}
EOF
cc -g -O0 -fPIC -shared -o "$ROOT$P/lib/libcsin.so" "$T/src/lib.c" &&
	cc -g -O0 -fPIC -shared -o "$P/lib/libcsin.so" "$T/src/decoy.c" &&
	cc -g -O0 -o "$T/src/cs-inside" "$T/src/main.c" -L"$ROOT$P/lib" -lcsin -Wl,-rpath,"$P/lib" &&
	cc -g -O0 -fPIC -shared -o "$T/src/libesc.so" "$T/src/esc.c" &&
	cc -g -O0 -o "$ROOT$P/bin/csin-escape" "$T/src/escape.c" -ldl || fail "building the container's programs"
cp "$ROOT$P/bin/csin-escape" "$ROOT$P/bin/csin-control"
# One name per case: the entry is found by it (COREDUMP_COMM).
for name in csin-chroot csin-nspawn csin-socket csin-userns; do cp "$T/src/cs-inside" "$ROOT$P/bin/$name"; done
mkdir -p "$ROOT$P/esc/d"
cp "$T/src/libesc.so" "$ROOT$P/esc/d/libesc.so"
# The host's copy out of the root: the same build-id, but stripped, so that a trace read from it cannot name the
# static function.
strip --strip-all -o "$T/escape/libesc.so" "$T/src/libesc.so" || fail "strip"
id=$(readelf -n "$ROOT$P/lib/libcsin.so" | sed -n 's/.*Build ID: //p')
escid=$(readelf -n "$T/src/libesc.so" | sed -n 's/.*Build ID: //p')
decoy=$(readelf -n "$P/lib/libcsin.so" | sed -n 's/.*Build ID: //p')
ok "the container's library (build-id $id) and the host's at the same path ($decoy)"

write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=1%" "MaxUse=100%" "RateLimitBurst=0" \
	"RateLimitGlobalBurst=0" "Socket=$T/sock/kernel.socket"
use_handler "$T/c.conf"

# entry_of COMM: the crash entry of the process named COMM (export format), waited for.
entry_of() { entry_where "COREDUMP_COMM=$1"; }
# frames TEXT: the function of each frame of the first thread's stack, up to main; gdb's "??" is our "n/a".
ours() { sed -n '/^Stack trace of thread/,/^$/p' | sed -n 's/^ *#[0-9]* *0x[0-9a-f]* \([^ ]*\) .*/\1/p' | sed '/^main$/q'; }
gdbs() {
	sed -n '/^==bt==$/,$p' | sed -n 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([^ ]*\) .*/\2/p' | sed 's/^??$/n\/a/' |
		sed '/^main$/q'
}

# check_inside LABEL COMM: the crash of COMM was traced from the container's files, as gdb sees it.
check_inside() {
	local e msg core bt
	e=$(entry_of "$2") || fail "$1: no entry"
	msg=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_COMM=$2")
	check "$1: the trace names the container's library function" has "$msg" "cs_inside_crash (libcsin.so + "
	check "$1: and the program's own, which the host has not" has "$msg" "cs_inside_caller ($2 + "
	check "$1: never the host's build of the library" lacks "$msg" "cs_host_decoy"
	check "$1: the library's module line has the container's build-id" has "$msg" "libcsin.so with build-id $id"
	check "$1: every module's file was read ($(field "$e" CORESINK_TRACE_UNREAD))" \
		lacks "$e" "CORESINK_TRACE_UNREAD="
	check "$1: analysed in the process's own root: $(field "$e" CORESINK_TRACE_SANDBOX)" \
		has "$(field "$e" CORESINK_TRACE_SANDBOX)" "process-root"
	core=$(field "$e" COREDUMP_FILENAME)
	# Set before gdb loads the core: it would read the host's file at the library's path first.
	bt=$(gdb -batch -nx -iex "set sysroot $ROOT" -ex 'echo ==bt==\n' -ex bt "$ROOT$P/bin/$2" "$core" 2>/dev/null)
	check "$1: gdb, with the container's root as its sysroot, shows the same frames: $(printf '%s\n' "$msg" |
		ours | tr '\n' ' ')" test "$(printf '%s\n' "$msg" | ours)" = "$(printf '%s\n' "$bt" | gdbs)"
	check "$1: the frames are the container's" test "$(printf '%s\n' "$msg" | ours | head -n 2 | tr '\n' ' ')" = \
		"cs_inside_crash cs_inside_caller "
	E=$e
}
t0=$(date +%s%N)
inside() { { unshare --pid --mount --fork chroot "$ROOT" /bin/sh -c "ulimit -c unlimited; exec $*"; } 2> /dev/null; }

# 1. unshare + chroot, pipe mode.
inside "$P/bin/csin-chroot" 2> /dev/null
check_inside "unshare + chroot" csin-chroot
check "unshare + chroot: the pid inside the container: $(field "$E" CORESINK_CONTAINER_PID)" \
	test "$(field "$E" CORESINK_CONTAINER_PID)" = 1 -o "$(field "$E" CORESINK_CONTAINER_PID)" = 2
check "unshare + chroot: COREDUMP_CONTAINER_CMDLINE names what started it: $(field "$E" COREDUMP_CONTAINER_CMDLINE)" \
	has "$(field "$E" COREDUMP_CONTAINER_CMDLINE)" "unshare"
check "unshare + chroot: COREDUMP_ROOT is the container's: $(field "$E" COREDUMP_ROOT)" \
	test "$(field "$E" COREDUMP_ROOT)" = "$ROOT"

# 2. systemd-nspawn without boot, pipe mode.
if command -v systemd-nspawn > /dev/null; then
	keep=""
	[ -d /run/systemd/system ] || keep=--keep-unit
	[ -d /run/systemd/nspawn ] || at_exit "rm -rf /run/systemd/nspawn"
	systemd-nspawn -q -D "$ROOT" --register=no $keep --as-pid2 /bin/sh -c "ulimit -c unlimited; exec $P/bin/csin-nspawn" \
		> /dev/null 2>&1
	check_inside "systemd-nspawn" csin-nspawn
	check "systemd-nspawn: COREDUMP_CONTAINER_CMDLINE: $(field "$E" COREDUMP_CONTAINER_CMDLINE)" \
		has "$(field "$E" COREDUMP_CONTAINER_CMDLINE)" "systemd-nspawn"
	check "systemd-nspawn: the pid inside: $(field "$E" CORESINK_CONTAINER_PID)" \
		test "$(field "$E" CORESINK_CONTAINER_PID)" = 2
else
	ok "systemd-nspawn: not here (Debian's systemd-container), its case left out"
fi

# 3. Socket mode, unshare + chroot.
if printf '@@/run/coresink-probe.sock\n' 2>/dev/null > /proc/sys/kernel/core_pattern; then
	start_server "$T/c.conf"
	use_socket "$T/c.conf"
	inside "$P/bin/csin-socket" 2> /dev/null
	check_inside "socket mode" csin-socket
	check "socket mode: handled by the server" has_line "$E" "CORESINK_MODE=socket"
	stop_server
	use_handler "$T/c.conf"
else
	ok "socket mode: not in this kernel (Linux 6.17), its case left out"
fi

# 4. A user namespace with mapped ids (systemd-nspawn --private-users): root inside is uid 100000 on the host, the
# files stay the host's (ownership off), as a container's image shared between containers is.
if command -v systemd-nspawn > /dev/null; then
	systemd-nspawn -q -D "$ROOT" --register=no $keep --as-pid2 --private-users=100000:65536 \
		--private-users-ownership=off /bin/sh -c "ulimit -c unlimited; exec $P/bin/csin-userns" > /dev/null 2>&1
	e=$(entry_of csin-userns) || fail "user namespace: no entry"
	check "user namespace: the crash of uid 100000 (root inside) is stored" all_of "$e" "COREDUMP_UID=100000" \
		"CORESINK_RESULT=stored"
	check_inside "user namespace" csin-userns
else
	ok "user namespace: no systemd-nspawn here to map the ids, its case left out"
fi

# 5. The escape: the library's directory, looked up after the crash, is a symlink to a stripped copy of the library
# on the host (same build-id) out of the root. The path is resolved beneath the root, where it names nothing; the
# module is read from the file the process had mapped, which names its static function (a trace read from the host's
# copy could not). The control, the same crash without the symlink, names it too.
escape() {
	{ unshare --user --map-root-user --mount --fork chroot "$ROOT" /bin/sh -c \
		"ulimit -c unlimited; exec $P/bin/$1 $P/esc/d/libesc.so $P/esc $2"; } 2> /dev/null
}
escape csin-control -
entry_of csin-control > /dev/null || fail "escape: no entry for the control"
msg=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" COREDUMP_COMM=csin-control)
check "escape, control: with the library's file in place, its static function is named" \
	has "$msg" "cs_escape_hidden (libesc.so + "
escape csin-escape "/../../../../../../../..$T/escape" &
keeper_of=$!
at_exit "kill \$(cat '$ROOT/tmp/keeper.pid' 2> /dev/null) 2> /dev/null; wait $keeper_of 2> /dev/null"
e=$(entry_of csin-escape) || fail "escape: no entry"
msg=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" COREDUMP_COMM=csin-escape)
check "escape: the module is in the trace, by its build-id" has "$msg" "libesc.so with build-id $escid"
check "escape: the host's stripped copy out of the root was not read; the mapped file was: its static function is named" \
	has "$msg" "cs_escape_hidden (libesc.so + "
check "escape: $(field "$e" CORESINK_TRACE_FILES)" matches "$e" "^CORESINK_TRACE_FILES=[1-9][0-9]* opened from the mappings$"

# 6. The container's id, from its cgroup: a crash in a cgroup named as Docker's cgroupfs driver names its containers'
# (/docker/ID; Docker itself is not run here). Its unified hierarchy is where the kernel says it is.
cgroot=""
for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do [ -e "$d/cgroup.procs" ] && { cgroot=$d; break; }; done
if [ -n "$cgroot" ] && [ ! -e "$cgroot/docker" ]; then
	cid=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
	at_exit "rmdir '$cgroot/docker/$cid' '$cgroot/docker' 2> /dev/null"
	mkdir -p "$cgroot/docker/$cid" || fail "mkdir $cgroot/docker/$cid"
	{ sh -c "echo \$\$ > '$cgroot/docker/$cid/cgroup.procs' && ulimit -c unlimited && exec '$CRASHER' -c csin-docker 1"; } 2> /dev/null
	e=$(entry_of csin-docker) || fail "docker cgroup: no entry"
	check "a crash in /docker/ID: the runtime and the container id: $(field "$e" CORESINK_CONTAINER_RUNTIME) $(field "$e" \
		CORESINK_CONTAINER_ID)" all_of "$e" "CORESINK_CONTAINER_RUNTIME=docker" "CORESINK_CONTAINER_ID=$cid"
else
	ok "container id: no cgroup2 hierarchy to make /docker/ID in (or one is there already), its case left out"
fi
ok "the container crashes handled and checked in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
