/*
 * cgacct.c: what a socket-mode server's cgroup (v2) spent on one crash, measured the same way for every server:
 * CPU seconds from cpu.stat's usage_usec (its processes and their children: the copy, compression, the stack
 * trace) and peak memory from memory.peak (page cache charged to it included), reset for each crash through an fd
 * of its own (Linux 6.12; an older kernel gives the peak since the cgroup was made). coresink --serve is put in a
 * cgroup of the bench's own; systemd-coredumpd is in its unit's. The crash is over for the server once the
 * processes it started for it are gone, which is waited for (up to a minute). Where the hierarchy is not cgroup v2
 * (this is the case on a host that mounts v1), nothing is measured: 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "cgacct.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define IDLE_WAIT_TICKS 600   /* 100 ms each */

/* The text of path/name, at most size - 1 bytes. 0 or -errno. */
static int get(const char *path, const char *name, char *buf, size_t size)
{
	char file[PATH_MAX];

	(void) snprintf(file, sizeof(file), "%s/%s", path, name);
	return io_read_text(file, buf, size);
}

static int put(const char *path, const char *name, const char *text)
{
	char file[PATH_MAX];

	(void) snprintf(file, sizeof(file), "%s/%s", path, name);
	return io_write_text(file, text, strlen(text));
}

/* cpu.stat's usage_usec; 0 where it cannot be read. */
static uint64_t usage_usec(const char *path)
{
	char buf[1024], *p;
	uint64_t v = 0;

	if (get(path, "cpu.stat", buf, sizeof(buf)) == 0 && (p = strstr(buf, "usage_usec ")))
		(void) parse_u64_prefix(p + 11, strspn(p + 11, "0123456789"), &v);
	return v;
}

/* How many processes the cgroup holds; -1 where it cannot be read. */
static long procs(const char *path)
{
	char buf[65536];
	long n = 0;

	if (get(path, "cgroup.procs", buf, sizeof(buf)) < 0)
		return -1;
	for (char *p = buf; *p; p++)
		n += *p == '\n';
	return n;
}

/*
 * Puts pid (a server the bench started) in a cgroup of its own, CGROUP_ROOT/name, whose path goes to path. 0, or
 * -errno where there is no cgroup v2 hierarchy (path is then empty).
 */
int cgacct_adopt(const char *name, pid_t pid, char *path, size_t size)
{
	char text[32];
	int r;

	path[0] = '\0';
	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK) < 0)
		return -EOPNOTSUPP;
	if (snprintf(path, size, "%s/%s", CGROUP_ROOT, name) >= (int)size)
		return path[0] = '\0', -ENAMETOOLONG;
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		path[0] = '\0';
		return r;
	}
	(void) snprintf(text, sizeof(text), "%d\n", (int)pid);
	r = put(path, "cgroup.procs", text);
	if (r < 0) {
		(void) rmdir(path);
		path[0] = '\0';
	}
	return r;
}

/* Removes a cgroup cgacct_adopt() made, once its server is gone. */
void cgacct_drop(const char *path)
{
	if (path[0])
		(void) rmdir(path);
}

/* Before a crash: the cgroup's CPU use and processes so far, and its peak reset. */
void cgacct_begin(struct cgacct *a, const char *path)
{
	char file[PATH_MAX];

	*a = (struct cgacct) { .peak_fd = -1 };
	if (!path[0])
		return;
	a->usage0 = usage_usec(path);
	a->procs0 = procs(path);
	(void) snprintf(file, sizeof(file), "%s/memory.peak", path);
	a->peak_fd = open(file, O_RDWR | O_CLOEXEC);
	if (a->peak_fd >= 0)
		(void) io_write_full(a->peak_fd, "reset\n", 6);
}

/* After a crash: once the processes started for it are gone, the CPU seconds and the peak since cgacct_begin(). */
void cgacct_end(struct cgacct *a, const char *path, double *cpu, uint64_t *peak)
{
	const struct timespec tick = { 0, 100000000 };
	char buf[64];
	ssize_t n;

	*cpu = 0, *peak = 0;
	if (!path[0])
		return;
	for (int i = 0; i < IDLE_WAIT_TICKS && a->procs0 >= 0 && procs(path) > a->procs0; i++)
		nanosleep(&tick, NULL);
	*cpu = (double)(usage_usec(path) - a->usage0) / 1e6;
	if (a->peak_fd >= 0 && (n = io_pread_full(a->peak_fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		(void) parse_u64_prefix(buf, strspn(buf, "0123456789"), peak);
	}
	if (a->peak_fd >= 0)
		(void) close(a->peak_fd);
	a->peak_fd = -1;
}
