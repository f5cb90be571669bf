/* cgacct.h: what a socket-mode server's cgroup spent on one crash. */
#ifndef CORESINK_BENCH_CGACCT_H
#define CORESINK_BENCH_CGACCT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One crash's accounting: the cgroup's CPU use and process count at its start, and the fd its peak is read through. */
struct cgacct {
	int peak_fd;
	uint64_t usage0;
	long procs0;
};

int cgacct_adopt(const char *name, pid_t pid, char *path, size_t size);
void cgacct_drop(const char *path);
void cgacct_begin(struct cgacct *a, const char *path);
void cgacct_end(struct cgacct *a, const char *path, double *cpu, uint64_t *peak);

#endif
