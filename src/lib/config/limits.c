/*
 * limits.c: the configuration's limits on one file system: KeepFree= and MaxUse= resolved against its size, and the
 * room a file beside the cores may take there (the kept modules, the stacks given to the journal, the fetch step),
 * both asked of the write stage's policy (side.c), which a capture's chunks ask too.
 */
#include "config.h"

/* c's limits on the file system of fd, into l. 0 or -errno. */
int config_limits(const struct config *c, int fd, struct side_space *l)
{
	return side_space(fd, &c->keep_free, &c->max_use, l);
}

/*
 * The bytes a file beside the cores may take on fd's file system now: used bytes (stored cores, captures in flight)
 * counted against MaxUse=, and pending ones (what statfs does not show of those captures yet) against KeepFree=.
 */
uint64_t config_side_room(const struct config *c, int fd, uint64_t used, uint64_t pending)
{
	const struct side_use u = { .used = used, .pending = pending };
	enum limit which;

	return side_room(fd, &c->keep_free, &c->max_use, &u, &which);
}

/* RateLimitUserBurst= as it applies: half of RateLimitGlobalBurst (at least one) unless set. */
uint32_t config_user_burst(const struct config *c)
{
	if (c->rate_user_burst != RATE_USER_HALF)
		return (uint32_t)c->rate_user_burst;
	return c->rate_global_burst ? (uint32_t)(c->rate_global_burst / 2 ? c->rate_global_burst / 2 : 1) : 0;
}
