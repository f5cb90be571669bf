/*
 * peer.c: who is at the other end of a connection to the coredump socket. Pipe mode is told by the kernel's
 * arguments; socket mode asks the pidfd the kernel attaches to the connection (SO_PEERPIDFD) and /proc, while the
 * task is held in its dump. Only a task the kernel marks as dumping (PIDFD_COREDUMPED) is a crash: anything else
 * that connects is refused, whatever it sends.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "peer.h"
#include "procfs.h"

/*
 * Opens the peer's pidfd and asks it who the task is and whether it is dumping. 0 for a crashing task, -EPERM for
 * anything else, -errno when the kernel cannot say (before 6.16: no socket mode either).
 */
int peer_identify(int conn, struct peer *p)
{
	socklen_t len = sizeof(p->pidfd);

	*p = (struct peer) { .pidfd = -1 };
	if (getsockopt(conn, SOL_SOCKET, SO_PEERPIDFD, &p->pidfd, &len) < 0) {
		p->pidfd = -1;
		return -errno;
	}
	p->info.mask = PIDFD_INFO_PID | PIDFD_INFO_COREDUMP;
	if (ioctl(p->pidfd, PIDFD_GET_INFO, &p->info) < 0)
		return -errno;
	if (!(p->info.mask & PIDFD_INFO_COREDUMP) || !(p->info.coredump_mask & PIDFD_COREDUMPED) ||
	    (p->info.coredump_mask & PIDFD_COREDUMP_SKIP))
		return -EPERM;
	return 0;
}

/* RLIMIT_CORE's soft limit from its limits file (prlimit would need CAP_SYS_RESOURCE over the task). 0 or -errno. */
static int read_rlimit_core(int dirfd, uint64_t *soft)
{
	static const char key[] = "\nMax core file size";
	char *limits = proc_read(dirfd, "limits", NULL), *p;
	size_t n;
	int r = -EBADMSG;

	if (!limits)
		return -ESRCH;
	p = strstr(limits, key);
	if (p) {
		p += strlen(key);
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n == 9 && strncmp(p, "unlimited", 9) == 0)
			*soft = UINT64_MAX, r = 0;
		else if (parse_u64_prefix(p, n, soft) == 0)
			r = 0;
	}
	free(limits);
	return r;
}

/*
 * The task's host name, as %h gives it: that of its UTS namespace. This process (one crash's handler) joins that
 * namespace, which changes nothing else it does. Empty when it cannot, and hostname_why says why: joining a UTS
 * namespace not its own needs CAP_SYS_ADMIN, which coresink.service does not have.
 */
static void read_hostname(struct peer *p, int dirfd)
{
	struct stat self, task;

	if (stat("/proc/self/ns/uts", &self) == 0 && fstatat(dirfd, "ns/uts", &task, 0) == 0 &&
	    self.st_ino != task.st_ino && setns(p->pidfd, CLONE_NEWUTS) < 0) {
		p->hostname_why = errno == EPERM ? "not read: its host name namespace is not the server's, and joining it "
			"needs CAP_SYS_ADMIN" : "not read: its host name namespace could not be joined";
		return;
	}
	if (gethostname(p->hostname, sizeof(p->hostname) - 1) < 0)
		p->hostname[0] = '\0';
}

static void read_comm(struct peer *p, int dirfd)
{
	char *comm = proc_read(dirfd, "comm", NULL);

	if (!comm)
		return;
	comm[strcspn(comm, "\n")] = '\0';
	(void) snprintf(p->comm, sizeof(p->comm), "%s", comm);
	free(comm);
}

/*
 * The kernel arguments pipe mode would have had, as far as the task tells before its dump: the signal is not
 * among them (the core's notes give it later), nor the thread, and the time is now. rlimit stays unlimited when it
 * cannot be read (the dump is bounded by MaxCoreSize still); the dump mode falls back to root's.
 */
void peer_kargs(struct peer *p, uint64_t time, struct kargs *k)
{
	uint64_t rlimit = UINT64_MAX;
	_cleanup_close_ int dirfd = proc_open((pid_t)p->info.pid);

	if (dirfd >= 0) {
		read_comm(p, dirfd);
		read_hostname(p, dirfd);
		(void) read_rlimit_core(dirfd, &rlimit);
	}
	*k = (struct kargs) {
		.pid = (pid_t)p->info.pid,
		.uid = p->info.ruid,
		.gid = p->info.rgid,
		.time = time,
		.rlimit = rlimit,
		.hostname = p->hostname,
		.hostname_why = p->hostname_why,
		.comm = p->comm,
		.dumpmode = p->info.coredump_mask & PIDFD_COREDUMP_USER ? SUID_DUMP_USER : SUID_DUMP_ROOT,
		.pidfd = p->pidfd,
	};
}

/*
 * The signal that killed the task, for a crash that left no core to read it from: its exit status, which pidfs
 * gives once the task is reaped (its parent's wait). Waits for that at most timeout_ms. The signal, or -errno.
 */
int peer_exit_signal(const struct peer *p, int timeout_ms)
{
	struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };
	struct pidfd_info info;
	int r;

	if (p->pidfd < 0)
		return -EBADF;
	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r < 0 ? -errno : -ETIMEDOUT;
	/*
	 * Exited now; reaped a moment later, as a rule. Until then pidfs has no exit status, and the ioctl either
	 * succeeds without it or says ESRCH: either way the request's own mask is no answer.
	 */
	for (int waited = 0; waited <= timeout_ms; waited += 5) {
		info = (struct pidfd_info) { .mask = PIDFD_INFO_EXIT };
		r = ioctl(p->pidfd, PIDFD_GET_INFO, &info);
		if (r < 0 && errno != ESRCH)
			return -errno;
		if (r == 0 && (info.mask & PIDFD_INFO_EXIT))
			return WIFSIGNALED(info.exit_code) ? WTERMSIG(info.exit_code) : -ENODATA;
		(void) usleep(5000);
	}
	return -ETIMEDOUT;
}

void peer_close(struct peer *p)
{
	fd_close(&p->pidfd);
}
