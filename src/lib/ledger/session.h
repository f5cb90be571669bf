/* session.h: one capture's session with the shared ledger: the engine's hooks, the rate limit, the kernel's drops. */
#ifndef CORESINK_SESSION_H
#define CORESINK_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kskip.h"
#include "ledger.h"
#include "tidy.h"
#include "write.h"

#define SESSION_LOST_MAX 8

struct session {
	int dirfd;
	int statefd;
	pid_t pid;
	uint64_t start;      /* this handler's start time, its identity in the ledger */
	struct ledger l;
	unsigned removed;    /* cores vacuumed during this capture */
	unsigned unsent;     /* of them, cores ExecUpload= had not sent yet */
	uint64_t freed;
	/* Crashes whose handler died before its entry (pipe mode), found in the ledger: this handler names them. */
	struct inflight lost[SESSION_LOST_MAX];
	unsigned n_lost, lost_more;
	uid_t share_uid;           /* whose capture, and what of MaxUse (max_use) that user's cores may take before */
	struct size_spec share_of, max_use; /* its vacuum makes room from their own alone */
	bool have_share;
	bool sending;              /* the record says its entry may be out (session_publish, session_sending) */
	dev_t dev;                 /* the core directory's file system: a lazy capture's files measured on it */
	uint64_t ahead;            /* what it may write before it next reads the ledger (a chunk); 0: never lazy */
	unsigned others;           /* other captures in flight at the last read (hook_used) */
};

int session_open(struct session *q, int dirfd);
/* When a pipe-mode handler looks at what the kernel dropped: now, and from when (session_kernel_skips). */
struct kskip_when {
	uint64_t now_ms;       /* ms since the epoch */
	uint64_t storm_usec;   /* a new ledger's start: us since boot */
};

void session_close(struct session *q);
int session_end(struct session *q, const struct kskip_when *w, struct kskip *ks);
int session_remove(int dirfd, char *const *names, size_t n, int *result, bool *unsent, uint64_t *freed);
int session_begin(struct session *q, const struct ledger_crash *crash, const char *entry);
void session_hooks(struct session *q, struct engine_hooks *h);
void session_share(struct session *q, uid_t uid, const struct size_spec *share, const struct size_spec *max_use);
int session_publish(struct session *q, uint64_t size, uint64_t bytes, uint64_t ino, uint64_t held);
int session_sending(struct session *q);
int session_take(struct session *q, pid_t pid, struct inflight *f);
int session_spend(struct session *q, int (*spend)(void *ctx, uint64_t used, uint64_t pending), void *ctx);
int session_used(int dirfd, struct side_use *u);
unsigned session_others(const struct session *q);
/* How often one handler reads the kernel log for the crashes it dropped (session_kernel_skips). */
#define KSKIP_INTERVAL_MS 1000

int session_kernel_skips(struct session *q, uint64_t now_ms, uint64_t storm_usec, struct kskip *ks);
int session_admit(struct session *q, const char *exe, uid_t uid, uint64_t now, const struct rate_config *rc,
		  const struct ledger_crash *crash, const char *entry, uint64_t ahead, struct rate_verdict *v);
int session_rate(struct session *q, const char *exe, uid_t uid, uint64_t now, const struct rate_config *rc,
		 struct rate_verdict *v);

#endif
