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
	return 0;
}

/* RateLimitUserBurst= as it applies: half of RateLimitGlobalBurst (at least one) unless set. */
uint32_t config_user_burst(const struct config *c)
{
	if (c->rate_user_burst != RATE_USER_HALF)
		return (uint32_t)c->rate_user_burst;
	return c->rate_global_burst ? (uint32_t)(c->rate_global_burst / 2 ? c->rate_global_burst / 2 : 1) : 0;
}
