/*
 * confine.c: what the sandbox's child does to itself before it reads anything hostile, in the one order that keeps
 * every step possible and lets no later step undo an earlier one:
 *   1. its ids: an unprivileged uid and gid, never root's (the caller picks them: the crashing user's, or the
 *      dedicated analysis user's), no supplementary groups;
 *   2. namespaces of its own: a user namespace, and in it new mount, network and IPC namespaces: the file system
 *      read-only (and nosuid, nodev, noexec: no library can be loaded from it), /proc/sys hidden, no network but
 *      an unconfigured loopback; or, given a root (a container's), that root and nothing outside it: chroot(2),
 *      which its own user namespace allows, into a tree that belongs to another mount namespace, so that its
 *      mounts cannot be changed from here: what keeps it unchanged is step 5, which opens nothing for writing;
 *   3. no capability in any set, in that namespace or any other, and no_new_privs;
 *   4. not dumpable and killed with its parent: both are reset by every change of ids, so they come last, and the
 *      parent is checked to be still there after PR_SET_PDEATHSIG (it may have gone before);
 *   5. a seccomp filter that allows the calls elfutils needs to read files it opens read-only and to write its
 *      output, and answers EPERM to anything else (sockets, signals, ptrace, execve, file changes).
 * Where the kernel refuses a namespace (user namespaces disabled) the child goes on without it and says so in the
 * mask of what was applied; the ids, the capabilities, the dumpable flag and the filter are never optional.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <linux/netlink.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base.h"
#include "confine.h"

/* The fds the child may write: its stdout and stderr (/dev/null) and the pipe to its parent (sandbox.c). */
static const int writable_fds[] = { STDOUT_FILENO, STDERR_FILENO, SANDBOX_OUT_FD };

/* The calls allowed as they come. Files are opened read-only and memory is mapped without PROT_EXEC (below). */
static const int allowed[] = {
	SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(readv), SCMP_SYS(preadv), SCMP_SYS(lseek), SCMP_SYS(close),
	SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(statx),
	SCMP_SYS(readlink), SCMP_SYS(readlinkat), SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2),
	SCMP_SYS(getdents64), SCMP_SYS(fcntl), SCMP_SYS(dup), SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap),
	SCMP_SYS(madvise), SCMP_SYS(futex), SCMP_SYS(getrandom), SCMP_SYS(sysinfo), SCMP_SYS(uname),
	SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getuid),
	SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
	SCMP_SYS(sigaltstack), SCMP_SYS(sched_yield), SCMP_SYS(restart_syscall), SCMP_SYS(exit),
	SCMP_SYS(exit_group),
};

static int drop_ids(const struct sandbox_limits *l)
{
	/* Only root can change users; anyone else (a unit test) stays who it is. */
	if (geteuid() != 0)
		return 0;
	if (l->uid == 0 || l->gid == 0)
		return -EPERM;
	if (setgroups(0, NULL) < 0 || setresgid(l->gid, l->gid, l->gid) < 0 || setresuid(l->uid, l->uid, l->uid) < 0)
		return -errno;
	return 0;
}

/*
 * A user namespace owned by this (unprivileged) uid, and new mount, network and IPC namespaces owned by it. No id
 * is mapped in it: the kernel checks every file against the real ids all the same, and the process could not
 * write its own maps anyway (not dumpable, its /proc files are root's). 0 or -errno.
 */
static int unshare_all(void)
{
	return unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC) < 0 ? -errno : 0;
}

/*
 * In the new mount namespace: every mount private (nothing done here reaches the host), read-only, nosuid, nodev
 * and noexec, recursively; /proc/sys under an empty read-only tmpfs. 0 or -errno.
 */
static int hide_system(void)
{
	struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					    MOUNT_ATTR_NOEXEC, .propagation = MS_PRIVATE };

	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &a, sizeof(a)) < 0)
		return -errno;
	if (mount("coresink-sandbox", "/proc/sys", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=0,mode=0") < 0)
		return -errno;
	return 0;
}

/*
 * The root it was given (SANDBOX_ROOT_FD) becomes its root, and its working directory; the fd is closed, so that
 * nothing outside that root can be named again. 0 or -errno.
 */
static int enter_root(void)
{
	int r = fchdir(SANDBOX_ROOT_FD) == 0 && chroot(".") == 0 && chdir("/") == 0 ? 0 : -errno;

	(void) close(SANDBOX_ROOT_FD);
	return r;
}

/* No capability left, in any set, and none to gain back. */
static int drop_capabilities(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
		(void) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	(void) prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
}

/* Not dumpable (no core of it, no ptrace or /proc by its uid), and killed when parent goes. 0 or -errno. */
static int tie_to_parent(pid_t parent)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return -errno;
	return getppid() == parent ? 0 : -ESRCH;
}

/* Calls allowed only with some bits of one argument clear: files opened read-only, memory mapped not executable. */
static const struct {
	int nr;
	unsigned arg;
	uint64_t clear;
} masked[] = {
	{ SCMP_SYS(openat), 2, O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND },
	{ SCMP_SYS(open), 1, O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND },
	{ SCMP_SYS(mmap), 2, PROT_EXEC },
	{ SCMP_SYS(mprotect), 2, PROT_EXEC },
};

static int allow_rules(scmp_filter_ctx ctx)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < ELEMENTSOF(allowed); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(masked); i++) {
		const struct scmp_arg_cmp cmp = { .arg = masked[i].arg, .op = SCMP_CMP_MASKED_EQ,
						  .datum_a = masked[i].clear, .datum_b = 0 };

		r = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, masked[i].nr, 1, &cmp);
	}
	for (size_t i = 0; r == 0 && i < 2 * ELEMENTSOF(writable_fds); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, i % 2 ? SCMP_SYS(writev) : SCMP_SYS(write), 1,
				     SCMP_A0(SCMP_CMP_EQ, (uint64_t)writable_fds[i / 2]));
	return r;
}

/* The allowlist, loaded: from here on, anything else fails with EPERM. 0 or -errno. */
static int filter_syscalls(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	int r;

	if (!ctx)
		return -ENOMEM;
	r = allow_rules(ctx);
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

/* In a user namespace of its own: the ids it had mapped to themselves, so that what it writes is still its own. */
static int map_own_ids(uid_t uid, gid_t gid)
{
	char map[64];
	int fd, r = 0;
	const struct { const char *file; const char *text; } steps[] = {
		{ "/proc/self/setgroups", "deny" }, { "/proc/self/uid_map", NULL }, { "/proc/self/gid_map", NULL },
	};

	for (size_t i = 0; r == 0 && i < ELEMENTSOF(steps); i++) {
		const char *text = steps[i].text;

		if (!text) {
			(void) snprintf(map, sizeof(map), "%u %u 1", i == 1 ? (unsigned)uid : (unsigned)gid,
					i == 1 ? (unsigned)uid : (unsigned)gid);
			text = map;
		}
		fd = open(steps[i].file, O_WRONLY | O_CLOEXEC);
		r = fd < 0 ? -errno : io_write_full(fd, text, strlen(text));
		fd_close(&fd);
	}
	return r;
}

/*
 * The calls the fetch step never makes, whatever a server sends it: it talks HTTP(S) to its servers and writes its
 * cache, nothing else. Each fails with EPERM: another process (ptrace, its memory, its fds, a signal to anyone but
 * itself), a way out of its confinement (namespaces, mounts, a session or group of its own out of the deadline's kill,
 * a program to run), and what its namespaces do not take away (System V IPC and keys are checked here too).
 */
static const int fetch_denied[] = {
	SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(kcmp),
	SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_getfd), SCMP_SYS(pidfd_send_signal), SCMP_SYS(tkill),
	SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo),
	SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(chroot),
	SCMP_SYS(fsopen), SCMP_SYS(fsmount), SCMP_SYS(fsconfig), SCMP_SYS(move_mount), SCMP_SYS(open_tree),
	SCMP_SYS(mount_setattr), SCMP_SYS(setsid), SCMP_SYS(setpgid), SCMP_SYS(fork), SCMP_SYS(vfork),
	SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(shmget), SCMP_SYS(shmat), SCMP_SYS(semget), SCMP_SYS(msgget),
	SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(bpf), SCMP_SYS(perf_event_open),
	SCMP_SYS(userfaultfd), SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
	SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at), SCMP_SYS(mknod), SCMP_SYS(mknodat),
	SCMP_SYS(personality), SCMP_SYS(memfd_secret), SCMP_SYS(acct), SCMP_SYS(quotactl),
};

/* The namespace flags no clone of the fetch step may ask for. */
static const uint64_t fetch_clone_ns[] = { CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC,
					   CLONE_NEWUTS, CLONE_NEWCGROUP };

/* The address families the fetch step may open a socket of: its servers (IPv4, IPv6), and the kernel's routes. */
static bool fetch_family(int family)
{
	return family == AF_INET || family == AF_INET6 || family == AF_NETLINK;
}

/* The bits of socket(2)'s type that say the kind; the rest are SOCK_NONBLOCK and SOCK_CLOEXEC (the kernel's mask). */
#define SOCK_KIND_MASK 0xf

/*
 * A pair of unix sockets only of the kind libcurl makes (its threaded resolver's and its wakeup's: SOCK_STREAM). A
 * datagram pair is a unix socket by another door: sendto() with an address reaches any datagram socket of the host
 * by its path or abstract name (journald's, /dev/log), and connect() points it there; a stream pair is connected
 * for good, and refuses both (EISCONN). 0 or -errno.
 */
static int pair_rules(scmp_filter_ctx ctx)
{
	const uint32_t no = SCMP_ACT_ERRNO(EPERM);
	int r = seccomp_rule_add(ctx, no, SCMP_SYS(socketpair), 1, SCMP_A0(SCMP_CMP_NE, (uint64_t)AF_UNIX));

	for (uint64_t kind = 0; r == 0 && kind <= SOCK_KIND_MASK; kind++)
		if (kind != SOCK_STREAM)
			r = seccomp_rule_add(ctx, no, SCMP_SYS(socketpair), 1,
					     SCMP_A1(SCMP_CMP_MASKED_EQ, SOCK_KIND_MASK, kind));
	return r;
}

/*
 * The rules past the plain denials: a thread (libcurl's resolver), never a process; a signal to itself alone; a
 * socket only of fetch_family(), netlink only for routes (getaddrinfo asks the kernel which addresses it has): no
 * unix socket, abstract or not, so no journald, D-Bus or anything else the host listens on locally; a pair of them
 * only as pair_rules() allows. 0 or -errno.
 */
static int fetch_rules(scmp_filter_ctx ctx, pid_t self)
{
	const uint32_t no = SCMP_ACT_ERRNO(EPERM);
	int r = 0;

	for (size_t i = 0; r == 0 && i < ELEMENTSOF(fetch_denied); i++)
		r = seccomp_rule_add(ctx, no, fetch_denied[i], 0);
	/* glibc falls back to clone(2) where clone3 is not there; its flags can be seen, clone3's cannot. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (r == 0)
		r = seccomp_rule_add(ctx, no, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(fetch_clone_ns); i++)
		r = seccomp_rule_add(ctx, no, SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, fetch_clone_ns[i], fetch_clone_ns[i]));
	if (r == 0)
		r = seccomp_rule_add(ctx, no, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, (uint64_t)self));
	if (r == 0)
		r = seccomp_rule_add(ctx, no, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_NE, (uint64_t)self));
	for (int family = 0; r == 0 && family < AF_MAX; family++)
		if (!fetch_family(family))
			r = seccomp_rule_add(ctx, no, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, (uint64_t)family));
	if (r == 0)
		r = seccomp_rule_add(ctx, no, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_GE, (uint64_t)AF_MAX));
	if (r == 0)
		r = seccomp_rule_add(ctx, no, SCMP_SYS(socket), 2, SCMP_A0(SCMP_CMP_EQ, (uint64_t)AF_NETLINK),
				     SCMP_A2(SCMP_CMP_NE, (uint64_t)NETLINK_ROUTE));
	if (r == 0)
		r = pair_rules(ctx);
	return r;
}

/* The fetch step's filter, loaded: everything else is allowed (it is libcurl's and TLS's to need). 0 or -errno. */
static int filter_fetch(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return -ENOMEM;
	r = fetch_rules(ctx, getpid());
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

/*
 * The fetch step's own confinement (debuginfod.c), after exec as its unprivileged user with no capability: a user,
 * a mount and an IPC namespace of its own (the network kept: it is what the step is for), every mount read-only,
 * nosuid, nodev and noexec, /proc hidden under an empty tmpfs (no crash's /proc to read), and writable only the
 * directory writable (its cache); then no capability left, no_new_privs, and filter_fetch(). None of it is
 * optional: where the kernel refuses a step (user namespaces disabled: user.max_user_namespaces=0), -errno, and the
 * step must not go on. 0 with *applied telling what (SANDBOX_*).
 */
int confine_fetch(const char *writable, unsigned *applied)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					     MOUNT_ATTR_NOEXEC, .propagation = MS_PRIVATE };
	struct mount_attr rw = { .attr_clr = MOUNT_ATTR_RDONLY };
	uid_t uid = getuid();
	gid_t gid = getgid();
	int r = 0;

	*applied = geteuid() != 0 ? SANDBOX_UNPRIVILEGED : 0;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC) < 0)
		return -errno;
	r = map_own_ids(uid, gid);
	if (r == 0 && syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof(ro)) < 0)
		r = -errno;
	if (r == 0 && mount("coresink-fetch", "/proc", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			    "size=0,mode=0") < 0)
		r = -errno;
	if (r == 0 && (mount(writable, writable, NULL, MS_BIND, NULL) < 0 ||
		       syscall(SYS_mount_setattr, AT_FDCWD, writable, 0, &rw, sizeof(rw)) < 0))
		r = -errno;
	if (r < 0)
		return r;
	*applied |= SANDBOX_NAMESPACES | SANDBOX_READ_ONLY;
	r = drop_capabilities();
	if (r == 0)
		r = filter_fetch();
	if (r == 0)
		*applied |= SANDBOX_SECCOMP;
	return r;
}

/*
 * For a program to exec (ExecUpload=), which needs the network and the file system: l's unprivileged ids, no
 * capabilities and no_new_privs (a setuid binary gains nothing), killed with its parent. 0 or -errno.
 */
int confine_exec(const struct sandbox_limits *l, pid_t parent, unsigned *applied)
{
	int r = drop_ids(l);

	*applied = 0;
	if (r == 0 && geteuid() != 0)
		*applied |= SANDBOX_UNPRIVILEGED;
	if (r == 0)
		r = drop_capabilities();
	if (r == 0)
		r = tie_to_parent(parent);
	return r;
}

/*
 * Confines the calling child of parent as l says. 0 with *applied telling what (SANDBOX_*), or -errno when a step
 * that is never optional failed: the child must then not run anything.
 */
int confine(const struct sandbox_limits *l, pid_t parent, unsigned *applied)
{
	int r = drop_ids(l);

	*applied = 0;
	if (r < 0)
		return r;
	if (geteuid() != 0)
		*applied |= SANDBOX_UNPRIVILEGED;
	if (unshare_all() == 0) {
		*applied |= SANDBOX_NAMESPACES;
		if (hide_system() == 0 && l->root_fd < 0)
			*applied |= SANDBOX_READ_ONLY;
	}
	/* A root that was given is never optional: the file system around it is not the one to read. */
	if (l->root_fd >= 0) {
		r = enter_root();
		if (r < 0)
			return r;
		*applied |= SANDBOX_ROOT;
	}
	r = drop_capabilities();
	if (r == 0)
		r = tie_to_parent(parent);
	if (r == 0)
		r = filter_syscalls();
	if (r == 0)
		*applied |= SANDBOX_SECCOMP;
	return r;
}
