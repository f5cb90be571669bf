/* ratelimit.h: crash-loop control, a pure decision over one counter. */
#ifndef CORESINK_RATELIMIT_H
#define CORESINK_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

/* One window of crashes: of an executable (key = hash of its path) or of all of them (key 0). */
struct rate_entry {
	uint64_t key;
	uint64_t start;       /* seconds: when the window opened */
	uint32_t count;       /* crashes in the window */
	uint32_t suppressed;  /* crashes not stored since the last stored one */
};

bool rate_allow(struct rate_entry *e, uint64_t now, uint64_t interval, uint32_t burst);
uint64_t rate_key(const char *s);

#endif
