/* quota.h: the handler's side of the storage policy: the shared ledger, vacuum and the crash-rate limit. */
#ifndef CORESINK_QUOTA_H
#define CORESINK_QUOTA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine.h"
#include "kskip.h"
#include "ledger.h"

struct quota {
	int dirfd;
	int statefd;
	pid_t pid;
	uint64_t start;      /* this handler's start time, its identity in the ledger */
	struct ledger l;
	unsigned removed;    /* cores vacuumed during this capture */
	uint64_t freed;
};

int quota_open(struct quota *q, int dirfd);
void quota_close(struct quota *q);
int quota_begin(struct quota *q);
void quota_hooks(struct quota *q, struct engine_hooks *h);
int quota_publish(struct quota *q, uint64_t size, uint64_t bytes);
int quota_hold(struct quota *q, uint64_t ino);
/* How often one handler reads the kernel log for the crashes it dropped (quota_kernel_skips). */
#define KSKIP_INTERVAL_MS 1000

int quota_kernel_skips(struct quota *q, uint64_t now_ms, struct kskip *ks);
int quota_rate(struct quota *q, const char *exe, uint64_t now, const struct rate_config *rc,
	       struct rate_verdict *v);

#endif
