/*
 * proc.c: a process's /proc directory: opened by pid, files read below it, and the start time that, with the pid,
 * names one process for good (the handler's identity in the ledger, and a check that a pid was not reused).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "proc.h"

/* Opens /proc/PID (pid 0: /proc/self) as a directory fd. The fd, or -errno. */
int proc_open(pid_t pid)
{
	char path[32];
	int fd;

	if (pid < 0)
		return -ESRCH;
	if (pid == 0)
		(void) snprintf(path, sizeof(path), "/proc/self");
	else
		(void) snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Reads a file below dirfd, at most PROC_FILE_MAX bytes, NUL-terminated; *len the bytes read. NULL on error. */
char *proc_read(int dirfd, const char *name, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = malloc(PROC_FILE_MAX + 1);
	n = buf ? io_read_full(fd, buf, PROC_FILE_MAX, NULL) : -ENOMEM;
	(void) close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = (size_t)n;
	return buf;
}

/* Field 22 of stat, the start time in clock ticks since boot; comm may hold spaces and parentheses. 0 or -EIO. */
int proc_start_ticks(int dirfd, uint64_t *ticks)
{
	char *stat = proc_read(dirfd, "stat", NULL), *p = stat ? strrchr(stat, ')') : NULL;
	unsigned long long t;
	int r = -EIO;

	if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			&t) == 1) {
		*ticks = t;
		r = 0;
	}
	free(stat);
	return r;
}

/* The start time of pid in clock ticks since boot. 0 or -errno. */
int proc_start_time(pid_t pid, uint64_t *ticks)
{
	int dirfd = proc_open(pid), r;

	if (dirfd < 0)
		return dirfd;
	r = proc_start_ticks(dirfd, ticks);
	(void) close(dirfd);
	return r;
}
