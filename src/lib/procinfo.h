/* procinfo.h: what /proc tells about the crashed process, read while it still exists. */
#ifndef CORESINK_PROCINFO_H
#define CORESINK_PROCINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"

struct procinfo {
	bool trusted;            /* verified to be the crashed process; nothing else is set otherwise */
	const char *why;         /* why not trusted */
	char *cmdline;           /* arguments joined by spaces */
	char *cgroup;            /* the cgroup path systemd tracks units by */
	struct units units;
	char *status, *maps, *limits, *fds, *environ;
	char exe[PATH_MAX], cwd[PATH_MAX], root[PATH_MAX];
	bool creds_unchanged;    /* real = effective uid and gid, AT_SECURE 0: it may read its own core */
	bool container;          /* in another pid namespace than the handler */
	char *container_cmdline; /* the command line of what started the container, seen from outside */
};

int procinfo_read(pid_t pid, int pidfd, uint64_t crash_time, bool environ, struct procinfo *pi);
void procinfo_free(struct procinfo *pi);

#endif
