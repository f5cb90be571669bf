/*
 * limits.c: the configuration's limits on one file system, in bytes now: KeepFree= and MaxUse= resolved against its
 * size (a percentage of it, capped), and its free space, read once. The one place they are resolved for what is not
 * a capture (a capture's engine has its own, space.c): the kept modules, the fetch step, coresinkctl status.
 */
#include <errno.h>
#include <sys/statvfs.h>

#include "config.h"

/* c's limits on the file system of fd, into l. 0 or -errno. */
int config_limits(const struct config *c, int fd, struct config_limits *l)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv) < 0)
		return -errno;
	l->total = (uint64_t)sv.f_blocks * sv.f_frsize;
	l->avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	l->keep_free = space_resolve(&c->keep_free, l->total);
	l->max_use = space_resolve(&c->max_use, l->total);
	/* A percentage of MaxUse, not of the file system. */
	l->max_use_per_user = space_resolve(&c->max_use_per_user, l->max_use);
	return 0;
}
