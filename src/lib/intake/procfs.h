/* procfs.h: a process's /proc directory: opened by pid, files read below it, and the start time that names it. */
#ifndef CORESINK_PROCFS_H
#define CORESINK_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROC_FILE_MAX (1024 * 1024)   /* the maps of a large process; more is cut */
#define PF_DUMPCORE 0x00000200        /* a task's flag while it dumps core (include/linux/sched.h) */

int proc_open(pid_t pid);
char *proc_read(int dirfd, const char *name, size_t *len);
int proc_start_ticks(int dirfd, uint64_t *ticks);
int proc_start_time(pid_t pid, uint64_t *ticks);
int proc_dumping(int dirfd, pid_t tid);
int proc_task_cpu(int dirfd, pid_t tid);

#endif
