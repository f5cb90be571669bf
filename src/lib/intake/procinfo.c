/*
 * procinfo.c: what /proc tells about the crashed process, read while it still exists (the kernel keeps it until
 * its core has been read, and waits for the handler when kernel.core_pipe_limit > 0).
 *
 * A pid can be reused once its process is reaped, and a helper running as root must not describe, or be tricked
 * into reading, another process (CVE-2020-15702, CVE-2025-4598). So everything is read through one directory fd
 * of /proc/PID, and only then is the identity checked: with the kernel's pidfd (%F), the process must still exist,
 * so the pid was never free in between. Without it (kernels before 6.16), its thread %I must still be dumping core
 * (PF_DUMPCORE), which a process that took over a freed pid is not, and the process must have started before the
 * crash. Links under /proc/PID are only read, never followed: nothing is opened through the crashed process's root
 * or cwd.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base.h"
#include "creds.h"
#include "procfs.h"
#include "procinfo.h"
#include "runtime.h"

#define FDS_MAX (64 * 1024)
#define ANCESTORS_MAX 64

/* NUL-separated words (cmdline, environ) joined by sep, without the trailing one. */
static char *join(char *buf, size_t len, char sep)
{
	while (len > 0 && buf[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = sep;
	buf[len] = '\0';
	return buf;
}

static char *read_words(int dirfd, const char *name, char sep)
{
	size_t len;
	char *buf = proc_read(dirfd, name, &len);

	return buf ? join(buf, len, sep) : NULL;
}

static void read_link(int dirfd, const char *name, char *buf, size_t len)
{
	ssize_t n = readlinkat(dirfd, name, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
}

/* Every open fd as systemd-coredump writes them: "N:target" then its fdinfo, a blank line between. */
static char *read_fds(int dirfd)
{
	_cleanup_close_ int fd = openat(dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_closedir_ DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char *out = calloc(1, FDS_MAX), target[PATH_MAX], info[sizeof("fdinfo/") + 256];
	size_t n = 0;
	struct dirent *e;

	while (d && out && n + 1 < FDS_MAX && (e = readdir(d))) {
		char *fdinfo;

		if (e->d_name[0] == '.')
			continue;
		read_link(fd, e->d_name, target, sizeof(target));
		(void) snprintf(info, sizeof(info), "fdinfo/%s", e->d_name);
		fdinfo = proc_read(dirfd, info, NULL);
		n += (size_t)snprintf(out + n, FDS_MAX - n, "%s%s:%s\n%s", n ? "\n" : "", e->d_name, target,
				      fdinfo ? fdinfo : "");
		free(fdinfo);
	}
	/* d owns fd once opened. */
	if (d)
		(void) TAKE_FD(fd);
	return out;
}

static bool same_file(int dirfd, const char *name, const char *ours)
{
	struct stat a, b;

	return fstatat(dirfd, name, &a, 0) == 0 && stat(ours, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/*
 * The process's root, opened (O_PATH) while the kernel holds the process, when it lives in another mount namespace
 * than this handler: a container's, or the host's seen from a sandboxed service. The files its core names are
 * found beneath it. A chroot in this mount namespace is not one: what it mapped before its chroot is named by paths
 * from this root. -1 otherwise, or when it cannot be opened.
 */
static int foreign_root(int dirfd)
{
	if (same_file(dirfd, "ns/mnt", "/proc/self/ns/mnt"))
		return -1;
	return openat(dirfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* Its pid in the innermost pid namespace it is in: the last of status's NSpid. 0 when not said. */
static pid_t inner_pid(const char *status)
{
	const char *p = status ? strstr(status, "\nNSpid:") : NULL;
	const char *end = p ? strchr(p + 1, '\n') : NULL;
	const char *last = NULL;

	if (!p)
		return 0;
	for (p += 7; *p && p != end; p++)
		if ((*p == ' ' || *p == '\t') && p[1] >= '0' && p[1] <= '9')
			last = p + 1;
	return last ? (pid_t)strtol(last, NULL, 10) : 0;
}

static pid_t parent_of(int dirfd)
{
	char *status = proc_read(dirfd, "status", NULL), *p = status ? strstr(status, "\nPPid:") : NULL;
	pid_t ppid = p ? (pid_t)strtol(p + 6, NULL, 10) : 0;

	free(status);
	return ppid;
}

/*
 * The command line of the first ancestor in the handler's own pid namespace: what started the container (a
 * runtime, unshare, systemd-nspawn). Informational only; read from /proc/PPID directly.
 */
static char *container_parent(int dirfd)
{
	pid_t p = parent_of(dirfd);

	for (int i = 0; i < ANCESTORS_MAX && p > 0; i++) {
		_cleanup_close_ int fd = proc_open(p);
		char *cmd = NULL;

		if (fd < 0)
			return NULL;
		if (same_file(fd, "ns/pid", "/proc/self/ns/pid"))
			cmd = read_words(fd, "cmdline", ' ');
		else
			p = parent_of(fd);
		if (cmd)
			return cmd;
	}
	return NULL;
}

static long long boot_time(void)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	long long btime = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	if (f)
		(void) fclose(f);
	return btime;
}

/* Whether fd is a pidfd of pid: its fdinfo says "Pid:\tPID" (a pidfd of a reaped process says -1). */
static bool pidfd_names(int fd, pid_t pid)
{
	char path[64], *info, *p;
	bool ok;
	_cleanup_close_ int dirfd = proc_open(0);

	(void) snprintf(path, sizeof(path), "fdinfo/%d", fd);
	info = dirfd >= 0 ? proc_read(dirfd, path, NULL) : NULL;
	p = info ? strstr(info, "\nPid:\t") : NULL;
	ok = p && strtol(p + 6, NULL, 10) == pid;
	free(info);
	return ok;
}

/*
 * Whether what was read (or opened) through dirfd came from the crashed process id names: NULL, or why not. Called
 * after the reads, so that the process proven alive now was alive, and the same, during them.
 */
const char *procinfo_verify(int dirfd, const struct procinfo_id *id)
{
	uint64_t ticks;
	long long btime = boot_time();
	long hz = sysconf(_SC_CLK_TCK);

	/* The process still exists after the reads, so the pid was never free to be reused in between. */
	if (id->pidfd >= 0)
		return pidfd_names(id->pidfd, id->pid) && syscall(SYS_pidfd_send_signal, id->pidfd, 0, NULL, 0) == 0 ?
			       NULL : "the pidfd (%F) does not name it, or it is gone";
	if (proc_start_ticks(dirfd, &ticks) < 0 || btime < 0 || hz <= 0)
		return "its start time cannot be read";
	/* One second of slack: %t and btime are whole seconds. The dump check below closes that second. */
	if ((uint64_t)btime + ticks / (uint64_t)hz > id->crash_time + 1)
		return "it started after the crash: the pid was reused";
	if (id->tid <= 0)
		return "without %F, only %I could prove it: the kernel gave neither";
	/* Still dumping after the reads: the pid was never free in between. */
	if (proc_dumping(dirfd, id->tid) != 1)
		return "without %F, its thread %I is not dumping core: the pid was reused, or it is gone";
	return NULL;
}

/* Whether it ran with the credentials it started with; status must have been read. */
static void read_creds(int dirfd, struct procinfo *pi)
{
	size_t len = 0;
	char *auxv = proc_read(dirfd, "auxv", &len);

	pi->creds_unchanged = creds_unchanged(pi->status, auxv, auxv ? len : 0);
	free(auxv);
}

/* What every entry carries, and the crash-rate limit's key: who it is, its unit, its credentials. */
static void read_brief(int dirfd, struct procinfo *pi)
{
	const char *path;

	pi->cmdline = read_words(dirfd, "cmdline", ' ');
	pi->cgroup = proc_read(dirfd, "cgroup", NULL);
	path = pi->cgroup ? cgroup_path(pi->cgroup) : NULL;
	if (path) {
		memmove(pi->cgroup, path, strcspn(path, "\n"));
		pi->cgroup[strcspn(path, "\n")] = '\0';
		cgroup_units(pi->cgroup, &pi->units);
		/* Now: the runtime may remove its files as soon as the process is gone. */
		cgroup_container(pi->cgroup, &pi->ct);
		runtime_read(&pi->ct, "");
	}
	pi->status = proc_read(dirfd, "status", NULL);
	read_creds(dirfd, pi);
	read_link(dirfd, "exe", pi->exe, sizeof(pi->exe));
	/* Here, not with the rest: a rule may match on it before the crash is admitted. */
	pi->container = !same_file(dirfd, "ns/pid", "/proc/self/ns/pid");
}

/* The rest, for a crash that is stored: its maps, limits, fds, environment, directories and container. */
static void read_rest(int dirfd, bool environ, struct procinfo *pi)
{
	pi->maps = proc_read(dirfd, "maps", NULL);
	pi->limits = proc_read(dirfd, "limits", NULL);
	pi->fds = read_fds(dirfd);
	if (environ)
		pi->environ = read_words(dirfd, "environ", '\n');
	read_link(dirfd, "cwd", pi->cwd, sizeof(pi->cwd));
	read_link(dirfd, "root", pi->root, sizeof(pi->root));
	if (pi->container)
		pi->container_cmdline = container_parent(dirfd);
	pi->inner_pid = inner_pid(pi->status);
	pi->root_fd = foreign_root(dirfd);
	pi->complete = true;
}

/*
 * Reads below /proc/PID (the brief part, or with rest the rest), then checks it was the crashed process all along.
 * 0, or -ESRCH with pi freed.
 */
static int read_verified(const struct procinfo_id *id, struct procinfo *pi, bool rest, bool environ)
{
	_cleanup_close_ int dirfd = id->pid > 0 ? proc_open(id->pid) : -ESRCH;

	if (dirfd < 0) {
		procinfo_free(pi);
		pi->why = "its /proc directory is gone";
		return -ESRCH;
	}
	if (rest)
		read_rest(dirfd, environ, pi);
	else
		read_brief(dirfd, pi);
	pi->why = procinfo_verify(dirfd, id);
	pi->trusted = pi->why == NULL;
	pi->by_pidfd = pi->trusted && id->pidfd >= 0;
	if (!pi->trusted) {
		const char *why = pi->why;

		procinfo_free(pi);
		pi->why = why;
		return -ESRCH;
	}
	return 0;
}

/*
 * Reads what every entry needs of the crashed process id names (see read_brief): little, so that a crash that is
 * not stored lets the kernel go at once. 0 when trusted, or -ESRCH (pi->why says why).
 */
int procinfo_read(const struct procinfo_id *id, struct procinfo *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->units.owner_uid = (uid_t)-1;
	return read_verified(id, pi, false, false);
}

/*
 * The crashed process's memory, /proc/PID/mem, opened while the kernel holds the process for its dump and checked
 * to be its: a minimal core reads the dynamic linker's module list there. The fd, or -errno.
 */
int procinfo_open_mem(const struct procinfo_id *id)
{
	_cleanup_close_ int dirfd = id->pid > 0 ? proc_open(id->pid) : -ESRCH, fd = -1;

	if (dirfd < 0)
		return dirfd;
	fd = openat(dirfd, "mem", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (procinfo_verify(dirfd, id) != NULL)
		return -ESRCH;
	return TAKE_FD(fd);
}

/* Reads the rest of what /proc tells, for a crash that is stored; pi from procinfo_read(). 0 or -ESRCH. */
int procinfo_complete(const struct procinfo_id *id, bool environ, struct procinfo *pi)
{
	if (!pi->trusted)
		return -ESRCH;
	return read_verified(id, pi, true, environ);
}

void procinfo_free(struct procinfo *pi)
{
	/* root_fd is only set by the rest: a procinfo never completed holds no fd (0 is not one of its). */
	if (pi->complete)
		fd_close(&pi->root_fd);
	free(pi->cmdline);
	free(pi->cgroup);
	free(pi->status);
	free(pi->maps);
	free(pi->limits);
	free(pi->fds);
	free(pi->environ);
	free(pi->container_cmdline);
	memset(pi, 0, sizeof(*pi));
	pi->units.owner_uid = (uid_t)-1;
}
