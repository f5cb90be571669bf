/*
 * quota.c: the handler's side of the storage policy. Concurrent handlers share a ledger in the core directory,
 * read and written only under flock() of the directory: the bytes of stored cores, what each capture in flight
 * holds (so that MaxUse counts cores not yet published), and the crash-rate windows. The directory is root's and
 * nobody else may write it, so no user can forge this state.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "proc.h"
#include "quota.h"
#include "vacuum.h"

/* Whether an in-flight record is this handler's own: pid and start time name one process. */
static bool is_mine(const struct quota *q, const struct inflight *f)
{
	return f->pid == q->pid && f->start == q->start;
}

static bool alive(const struct inflight *f)
{
	uint64_t start;

	return proc_start_time(f->pid, &start) == 0 && start == f->start;
}

static int lock(struct quota *q)
{
	return flock(q->dirfd, LOCK_EX) < 0 ? -errno : 0;
}

static void unlock(struct quota *q)
{
	(void) flock(q->dirfd, LOCK_UN);
}

/* Loads the ledger and forgets captures whose handler is gone (killed, or crashed itself). */
static int load(struct quota *q)
{
	int r = ledger_load(q->statefd, &q->l);

	for (size_t i = 0; r == 0 && i < q->l.n_inflight;) {
		const struct inflight *f = &q->l.inflight[i];

		if (is_mine(q, f) || alive(f))
			i++;
		else
			ledger_drop_inflight(&q->l, i);
	}
	return r;
}

int quota_open(struct quota *q, int dirfd)
{
	int r;

	*q = (struct quota) { .dirfd = dirfd, .statefd = -1, .pid = getpid() };
	r = proc_start_time(q->pid, &q->start);
	if (r < 0)
		return r;
	q->statefd = openat(dirfd, LEDGER_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	return q->statefd < 0 ? -errno : 0;
}

/* Counts the stored cores afresh (an admin may have removed some) and saves the ledger. Under the lock. */
int quota_begin(struct quota *q)
{
	int r = lock(q);

	if (r < 0)
		return r;
	r = load(q);
	if (r == 0)
		r = vacuum_total(q->dirfd, &q->l.published);
	if (r == 0)
		r = ledger_save(q->statefd, &q->l);
	unlock(q);
	return r;
}

/* Engine hook: the bytes of stored cores and of the other captures in flight. Called under the lock. */
static int hook_used(void *ctx, uint64_t *used, uint64_t *pending)
{
	struct quota *q = ctx;
	int r = load(q);

	if (r < 0)
		return r;
	*used = q->l.published;
	*pending = 0;
	for (size_t i = 0; i < q->l.n_inflight; i++) {
		if (is_mine(q, &q->l.inflight[i]))
			continue;
		*used += q->l.inflight[i].bytes;
		*pending += q->l.inflight[i].pending;
	}
	return 0;
}

/* Engine hook: deletes the oldest stored cores until need bytes are freed. Called under the lock. */
static int hook_make_room(void *ctx, uint64_t need, uint64_t *freed)
{
	struct quota *q = ctx;
	unsigned removed = 0;
	int r = vacuum_oldest(q->dirfd, need, freed, &removed);

	if (r < 0 || removed == 0)
		return r;
	q->freed += *freed;
	q->removed += removed;
	q->l.published = q->l.published > *freed ? q->l.published - *freed : 0;
	return ledger_save(q->statefd, &q->l);
}

/*
 * Engine hook: records what this capture holds, for the other handlers to count. Called under the lock. A full
 * in-flight table is an error: the others would not count these bytes.
 */
static int hook_reserve(void *ctx, uint64_t bytes, uint64_t pending)
{
	struct quota *q = ctx;
	struct inflight *f = ledger_inflight(&q->l, q->pid, q->start);

	if (!f)
		return -ENOSPC;
	f->bytes = bytes;
	f->pending = pending;
	return ledger_save(q->statefd, &q->l);
}

void quota_hooks(struct quota *q, struct engine_hooks *h)
{
	*h = (struct engine_hooks) { .used = hook_used, .make_room = hook_make_room, .reserve = hook_reserve,
				     .ctx = q };
}

/* Drops this capture from the ledger, counting size bytes as stored (0 when nothing was). */
static int settle_capture(struct quota *q, uint64_t size)
{
	int r = lock(q);

	if (r < 0)
		return r;
	r = load(q);
	for (size_t i = 0; r == 0 && i < q->l.n_inflight; i++)
		if (is_mine(q, &q->l.inflight[i]))
			ledger_drop_inflight(&q->l, i);
	q->l.published += size;
	if (r == 0)
		r = ledger_save(q->statefd, &q->l);
	unlock(q);
	return r;
}

int quota_publish(struct quota *q, uint64_t size)
{
	return settle_capture(q, size);
}

/*
 * Counts bytes this capture still holds after publishing (the raw core of a compressed one, open for its analysis)
 * as in flight, until quota_close(). 0 or -errno.
 */
int quota_hold(struct quota *q, uint64_t bytes)
{
	int r = lock(q);

	if (r < 0)
		return r;
	r = load(q);
	if (r == 0)
		r = hook_reserve(q, bytes, 0);
	unlock(q);
	return r;
}

void quota_close(struct quota *q)
{
	if (q->statefd < 0)
		return;
	(void) settle_capture(q, 0);
	(void) close(q->statefd);
	q->statefd = -1;
}

/* Applies the crash-rate limits to this crash (see rate_decide()), under the lock. 0 or -errno. */
int quota_rate(struct quota *q, const char *exe, uint64_t now, const struct rate_config *rc,
	       struct rate_verdict *v)
{
	struct rate_entry *all, *mine;
	int r = lock(q);

	*v = (struct rate_verdict) { .allowed = true };
	if (r < 0)
		return r;
	r = load(q);
	if (r == 0) {
		all = ledger_rate(&q->l, 0);
		mine = ledger_rate(&q->l, rate_key(exe));
		*v = rate_decide(mine, all, now, rc);
		r = ledger_save(q->statefd, &q->l);
	}
	unlock(q);
	return r;
}
