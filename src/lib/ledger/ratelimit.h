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

struct rate_config {
	uint64_t interval;              /* seconds */
	uint32_t burst, global_burst;   /* 0: no limit */
	uint32_t user_burst;            /* one user's crashes, of all executables; 0: no limit */
};

/* The domains of rate_key(): an executable's window, a user's. */
#define RATE_EXE 'e'
#define RATE_USER 'u' 

struct rate_verdict {
	bool allowed;
	const char *by;          /* "executable", "user" or "global" when not allowed */
	uint32_t suppressed_exe; /* crashes of this executable not stored since its last stored one */
	uint32_t suppressed_all; /* crashes the global limit did not store since the last stored one */
};

bool rate_allow(struct rate_entry *e, uint64_t now, uint64_t interval, uint32_t burst);
struct rate_verdict rate_decide(struct rate_entry *mine, struct rate_entry *user, struct rate_entry *all,
				uint64_t now, const struct rate_config *rc);
uint64_t rate_key(char domain, const char *s);

#endif
