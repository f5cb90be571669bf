/* sigstore.h: what this machine has seen of each crash signature, kept beside the cores (sigstore.c). */
#ifndef CORESINK_SIGSTORE_H
#define CORESINK_SIGSTORE_H

#include <stdbool.h>
#include <stdint.h>

#define SIGSTORE_FILE ".coresink.signatures"
#define SIGSTORE_MAX 4096   /* signatures remembered; the one seen longest ago makes room */

struct sig_seen {
	uint64_t count;       /* crashes of it this machine has seen, this one included */
	uint64_t first;       /* when the first was seen, seconds since the epoch */
	uint32_t kept;        /* cores of it kept in the current window */
	uint64_t window;      /* when that window began */
	bool keep;            /* this crash's core is to be kept (MaxCoresPerSignature) */
	char joined[17];      /* the signature of the same keys this one was counted with; "" none */
};

int sigstore_note(int dirfd, const char *hex, const char *keys, uint64_t now, bool stored, uint64_t max_cores,
		  uint64_t interval, struct sig_seen *seen);

#endif
