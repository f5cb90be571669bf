/*
 * procfs.c: a process's /proc directory: opened by pid, files read below it, and the start time that, with the pid,
 * names one process for good (the handler's identity in the ledger, and a check that a pid was not reused).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "procfs.h"

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
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = malloc(PROC_FILE_MAX + 1);
	n = buf ? io_read_full(fd, buf, PROC_FILE_MAX, NULL) : -ENOMEM;
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = (size_t)n;
	return buf;
}

/*
 * Field n of a stat file below dirfd (numbered as in proc(5): 3 is the state, 9 the flags, 22 the start time), as
 * a number. The comm (field 2) may hold spaces and parentheses: fields are counted after its last ')'. 0 or -EIO.
 */
static int stat_field(int dirfd, const char *name, int n, uint64_t *value)
{
	char *stat = proc_read(dirfd, name, NULL), *p = stat ? strrchr(stat, ')') : NULL, *save = NULL, *word;
	int r = -EIO;

	word = p ? strtok_r(p + 1, " ", &save) : NULL;
	for (int i = 3; word && i < n; i++)
		word = strtok_r(NULL, " ", &save);
	if (word && n >= 3) {
		char *end;

		errno = 0;
		*value = strtoull(word, &end, 10);
		r = errno == 0 && end != word ? 0 : -EIO;
	}
	free(stat);
	return r;
}

/* Field n of thread tid's stat (task/TID/stat) below dirfd, as stat_field(). */
static int task_stat_field(int dirfd, pid_t tid, int n, uint64_t *value)
{
	char name[48];

	(void) snprintf(name, sizeof(name), "task/%d/stat", (int)tid);
	return stat_field(dirfd, name, n, value);
}

/* The start time in clock ticks since boot (field 22 of stat). 0 or -EIO. */
int proc_start_ticks(int dirfd, uint64_t *ticks)
{
	return stat_field(dirfd, "stat", 22, ticks);
}

/*
 * Whether thread tid of the process whose /proc directory is dirfd is dumping core now: the kernel sets PF_DUMPCORE
 * in its flags (field 9 of task/TID/stat) for the dump and until the task exits, so a pid freed and reused since
 * shows a task without it. 1, 0, or -errno.
 */
int proc_dumping(int dirfd, pid_t tid)
{
	uint64_t flags;
	int r = task_stat_field(dirfd, tid, 9, &flags);

	return r < 0 ? r : (flags & PF_DUMPCORE) != 0;
}

/* The CPU thread tid of the process at dirfd last ran on (field 39 of task/TID/stat), or -errno. */
int proc_task_cpu(int dirfd, pid_t tid)
{
	uint64_t cpu;
	int r = task_stat_field(dirfd, tid, 39, &cpu);

	return r < 0 ? r : cpu > INT32_MAX ? -EIO : (int)cpu;
}

/* The start time of pid in clock ticks since boot. 0 or -errno. */
int proc_start_time(pid_t pid, uint64_t *ticks)
{
	_cleanup_close_ int dirfd = proc_open(pid);

	return dirfd < 0 ? dirfd : proc_start_ticks(dirfd, ticks);
}
