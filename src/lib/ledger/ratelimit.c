/*
 * ratelimit.c: crash-loop control. A fixed window per key (an executable, a user, or all): the first burst crashes
 * of each interval are stored, the rest counted as suppressed until the window turns over.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"
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
 * Counts one crash against its executable's window (mine), its user's (user; NULL for none) and the global one
 * (all), in that order. A crash a narrower limit suppresses does not count in the wider ones, so that one crash
 * loop, or one user's many, cannot use up the budget of the others: a user's own crashes are limited first (at
 * user_burst), and the rest of the global budget stays for other users. When the crash may be stored, the verdict
 * carries the suppressed counts, which restart.
 */
struct rate_verdict rate_decide(struct rate_entry *mine, struct rate_entry *user, struct rate_entry *all,
				uint64_t now, const struct rate_config *rc)
{
	struct rate_verdict v = { .allowed = true };

	if (!rate_allow(mine, now, rc->interval, rc->burst))
		return (struct rate_verdict) { .by = "executable" };
	/* A user's share of the global budget: without a global limit there is none to share. */
	if (user && rc->global_burst > 0 && !rate_allow(user, now, rc->interval, rc->user_burst)) {
		if (mine->suppressed < UINT32_MAX)
			mine->suppressed++;
		return (struct rate_verdict) { .by = "user" };
	}
	if (!rate_allow(all, now, rc->interval, rc->global_burst)) {
		if (mine->suppressed < UINT32_MAX)
			mine->suppressed++;
		return (struct rate_verdict) { .by = "global" };
	}
	v.suppressed_exe = mine->suppressed;
	v.suppressed_all = all->suppressed;
	mine->suppressed = 0;
	all->suppressed = 0;
	if (user)
		user->suppressed = 0;
	return v;
}

/*
 * The window key of s in domain (RATE_EXE, RATE_USER): the first 64 bits of SHA-256 of both, never 0 (the global
 * window's). Not a hash a crashing process can aim: FNV, which keyed the windows before, lets a process choose a
 * name whose key is another program's or another user's window, and use up its limit.
 */
uint64_t rate_key(char domain, const char *s)
{
	char hex[DIGEST_HEX + 1], *text;
	uint64_t h = 0;
	size_t n = strlen(s);

	text = malloc(n + 2);
	if (!text)
		return 1;
	text[0] = domain;
	memcpy(text + 1, s, n + 1);
	if (digest_hex(text, n + 1, hex) == 0)
		for (int i = 0; i < 16; i++)
			h = h << 4 | (uint64_t)(hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'a' + 10);
	free(text);
	return h ? h : 1;
}
