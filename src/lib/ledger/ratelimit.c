/*
 * ratelimit.c: crash-loop control. A fixed window per key: the first burst crashes of each interval are stored,
 * the rest counted as suppressed until the window turns over.
 */
#include "ratelimit.h"

/* Counts one crash at now (seconds) and says whether it may be stored. burst 0 disables the limit. */
bool rate_allow(struct rate_entry *e, uint64_t now, uint64_t interval, uint32_t burst)
{
	/* A clock that went backwards opens a new window as well. */
	if (now < e->start || now - e->start >= interval) {
		e->start = now;
		e->count = 0;
	}
	if (e->count < UINT32_MAX)
		e->count++;
	if (burst == 0 || e->count <= burst)
		return true;
	if (e->suppressed < UINT32_MAX)
		e->suppressed++;
	return false;
}

/*
 * Counts one crash against its executable's window (mine) and the global one (all). A crash the executable's limit
 * suppresses does not count globally, so that one crash loop cannot use up the global budget. When the crash may
 * be stored, the verdict carries the suppressed counts, which restart.
 */
struct rate_verdict rate_decide(struct rate_entry *mine, struct rate_entry *all, uint64_t now,
				const struct rate_config *rc)
{
	struct rate_verdict v = { .allowed = true };

	if (!rate_allow(mine, now, rc->interval, rc->burst))
		return (struct rate_verdict) { .by = "executable" };
	if (!rate_allow(all, now, rc->interval, rc->global_burst)) {
		if (mine->suppressed < UINT32_MAX)
			mine->suppressed++;
		return (struct rate_verdict) { .by = "global" };
	}
	v.suppressed_exe = mine->suppressed;
	v.suppressed_all = all->suppressed;
	mine->suppressed = 0;
	all->suppressed = 0;
	return v;
}

/* FNV-1a, never 0 (the global entry's key). */
uint64_t rate_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h ? h : 1;
}
