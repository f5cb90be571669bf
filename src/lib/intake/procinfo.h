/* procinfo.h: what /proc tells about the crashed process, read while it still exists. */
#ifndef CORESINK_PROCINFO_H
#define CORESINK_PROCINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"

/* What names the crashed process: its pid, the kernel's pidfd (%F, -1 without), the crashing thread (%I), %t. */
struct procinfo_id {
	pid_t pid;
	int pidfd;
	pid_t tid;
	uint64_t crash_time;
};

struct procinfo {
	bool trusted;            /* verified to be the crashed process; nothing else is set otherwise */
	bool by_pidfd;           /* verified by the kernel's pidfd: the strongest proof, the one the owner's ACL needs */
	const char *why;         /* why not trusted */
	char *cmdline;           /* arguments joined by spaces */
	char *cgroup;            /* the cgroup path systemd tracks units by */
	struct units units;
	struct container ct;     /* the container and pod its cgroup names, and what their runtime's files say */
	char *status, *maps, *limits, *fds, *environ;
	char exe[PATH_MAX], cwd[PATH_MAX], root[PATH_MAX];
	bool creds_unchanged;    /* real = effective uid and gid, AT_SECURE 0: it may read its own core */
	bool complete;           /* the rest was read too (procinfo_complete): maps, limits, fds, ...; else NULL */
	bool container;          /* in another pid namespace than the handler */
	char *container_cmdline; /* the command line of what started the container, seen from outside */
	pid_t inner_pid;         /* its pid in its own pid namespace (NSpid), 0 when unknown */
	int root_fd;             /* with complete: its root (O_PATH) when it is not the handler's own, else -1 */
};

int procinfo_read(const struct procinfo_id *id, struct procinfo *pi);
int procinfo_complete(const struct procinfo_id *id, bool environ, struct procinfo *pi);
int procinfo_open_mem(const struct procinfo_id *id);
const char *procinfo_verify(int dirfd, const struct procinfo_id *id);
void procinfo_free(struct procinfo *pi);

#endif
