/*
 * session.c: one capture's session with the ledger the concurrent handlers share in the core directory: the
 * engine's hooks (MaxUse, vacuum, what this capture holds, and the lock), the crash-rate limit, the report of what
 * the kernel dropped. The ledger (the bytes of stored cores, what each capture in flight holds, so that MaxUse
 * counts cores not yet published, the crash-rate windows) is read and written only under flock() of the ledger
 * file itself, here and nowhere else. The file is root's and 0600 in a directory only root may write, so no user
 * can forge this state, nor hold its lock: a lock on the directory, which every user may open, would let anyone
 * stop every capture (flock /var/lib/coresink sleep 1d).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "intake.h"
#include "kskip.h"
#include "session.h"
#include "store.h"
#include "tidy.h"

/* Whether an in-flight record is this handler's own: pid and start time name one process. */
static bool is_mine(const struct session *q, const struct inflight *f)
{
	return f->pid == q->pid && f->start == q->start;
}

/*
 * The stored bytes of the directory dirfd (on dev) counted afresh into l: the cores it names, and those whose handlers
 * have published them in the ledger (their records say stored) but not named them yet, by what their files without a
 * name hold beyond what their records count (ledger_live_bytes). A count from the names alone, made between a
 * publication and its name, would leave that core out until the next count: captures in a storm took its room
 * (t-storm: 4.5 MiB over MaxUse). 0 or -errno.
 */
static int recount(int dirfd, dev_t dev, struct ledger *l)
{
	uint64_t named;
	int r = vacuum_total(dirfd, &named);

	if (r < 0)
		return r;
	for (size_t i = 0; i < l->n_inflight; i++) {
		const struct inflight *f = &l->inflight[i];
		uint64_t live;

		if (!f->stored)
			continue;
		live = ledger_live_bytes(f->pid, dev);
		named += live > f->bytes ? live - f->bytes : 0;
	}
	l->published = named;
	return 0;
}

/* The other captures in flight, as the ledger last read (session_admit and every chunk's check) says. */
unsigned session_others(const struct session *q)
{
	unsigned n = 0;

	for (size_t i = 0; i < q->l.n_inflight; i++)
		n += !is_mine(q, &q->l.inflight[i]);
	return n;
}

/* This handler's record in the ledger it holds (its index into *at, where at is not NULL), or NULL. */
static struct inflight *mine(struct session *q, size_t *at)
{
	for (size_t i = 0; i < q->l.n_inflight; i++)
		if (is_mine(q, &q->l.inflight[i])) {
			if (at)
				*at = i;
			return &q->l.inflight[i];
		}
	return NULL;
}

static bool alive(const struct inflight *f)
{
	uint64_t start;

	return proc_start_time(f->pid, &start) == 0 && start == f->start;
}

/* The ledger's lock, this file's alone: every other user takes it through the engine's hooks (session_hooks). */
static int lock(struct session *q)
{
	return flock(q->statefd, LOCK_EX) < 0 ? -errno : 0;
}

static void unlock(struct session *q)
{
	(void) flock(q->statefd, LOCK_UN);
}

static int hook_lock(void *ctx)
{
	return lock(ctx);
}

static void hook_unlock(void *ctx)
{
	unlock(ctx);
}

/*
 * Forgets the captures of the loaded ledger whose handler is gone (killed, or crashed itself). The crash such a
 * handler had in hand is kept in q->lost, for this handler to name: the record leaves the ledger under the lock, so
 * that exactly one handler names it, once.
 */
static void sweep(struct session *q)
{
	for (size_t i = 0; i < q->l.n_inflight;) {
		const struct inflight *f = &q->l.inflight[i];

		if (is_mine(q, f) || alive(f)) {
			i++;
			continue;
		}
		/* Socket mode's server names its own (capture_lost): the record only goes. */
		if (f->crash.pid > 0 && !f->crash.by_server && q->n_lost < SESSION_LOST_MAX)
			q->lost[q->n_lost++] = *f;
		else if (f->crash.pid > 0 && !f->crash.by_server)
			q->lost_more++;
		ledger_drop_inflight(&q->l, i);
	}
}

/* Loads the ledger, the dead handlers' captures swept out (sweep). 0 or -errno. */
static int load(struct session *q)
{
	int r = ledger_load(q->statefd, &q->l);

	if (r == 0)
		sweep(q);
	return r;
}

/*
 * Takes the ledger's lock and reads it, dead handlers' crashes taken out (load): 0, or -errno with the lock let go.
 * Every change of a handler's record is take_ledger(), the change, put_ledger().
 */
static int take_ledger(struct session *q)
{
	int r = lock(q);

	if (r < 0)
		return r;
	r = load(q);
	if (r < 0)
		unlock(q);
	return r;
}

/* Saves the ledger unless r is an error, and lets go of its lock. r, or the save's -errno. */
static int put_ledger(struct session *q, int r)
{
	if (r == 0)
		r = ledger_save(q->statefd, &q->l);
	unlock(q);
	return r;
}

int session_open(struct session *q, int dirfd)
{
	struct stat st;
	int r;

	*q = (struct session) { .dirfd = dirfd, .statefd = -1, .pid = getpid() };
	r = proc_start_time(q->pid, &q->start);
	if (r < 0)
		return r;
	if (fstat(dirfd, &st) < 0)
		return -errno;
	q->dev = st.st_dev;
	r = statefile_open(dirfd, LEDGER_FILE);
	q->statefd = r < 0 ? -1 : r;
	return r < 0 ? r : 0;
}

/*
 * Counts the stored cores afresh (an admin may have removed some), records the crash this handler takes (crash, or
 * NULL) and its entry's id (entry) for a later handler to name should this one die before its entry, and saves the
 * ledger. Under the lock.
 */
int session_begin(struct session *q, const struct ledger_crash *crash, const char *entry)
{
	struct inflight *f;
	int r = take_ledger(q);

	if (r < 0)
		return r;
	/* A full table only costs the naming: the engine's own reservation says what a full table costs it. */
	f = crash ? ledger_inflight(&q->l, q->pid, q->start) : NULL;
	if (f) {
		f->crash = *crash;
		(void) snprintf(f->entry, sizeof(f->entry), "%s", entry ? entry : "");
	}
	return put_ledger(q, recount(q->dirfd, q->dev, &q->l));
}


/*
 * Engine hook: the bytes of stored cores and of the other captures in flight: as their records say, or, for a
 * lazy one (its handler alone at its last chunk), as its files hold and what it may write ahead. Called under the
 * lock.
 */
static int hook_used(void *ctx, uint64_t *used, uint64_t *pending)
{
	struct session *q = ctx;
	int r = load(q);

	if (r < 0)
		return r;
	*used = q->l.published;
	*pending = 0;
	q->others = 0;
	for (size_t i = 0; i < q->l.n_inflight; i++) {
		const struct inflight *f = &q->l.inflight[i];

		if (is_mine(q, f))
			continue;
		q->others++;
		*used += f->lazy ? ledger_live_bytes(f->pid, q->dev) + f->ahead : f->bytes;
		*pending += f->lazy ? f->ahead : f->pending;
	}
	return 0;
}

/* Engine hook: deletes the oldest stored cores until need bytes are freed. Called under the lock. */
static int hook_make_room(void *ctx, uint64_t need, uint64_t total, uint64_t *freed)
{
	struct vacuum_share share;
	struct session *q = ctx;
	uint64_t held[LEDGER_INFLIGHT_MAX];
	size_t n_held = 0;
	unsigned removed = 0, unsent = 0;
	int r;

	for (size_t i = 0; i < q->l.n_inflight; i++)
		if (q->l.inflight[i].held)
			held[n_held++] = q->l.inflight[i].held;
	if (q->have_share)
		share = (struct vacuum_share) { .uid = q->share_uid,
						.bytes = space_resolve(&q->share_of, space_resolve(&q->max_use, total)) };
	r = vacuum_oldest(q->dirfd, need, held, n_held, q->have_share ? &share : NULL, freed, &removed, &unsent);

	if (r < 0 || removed == 0)
		return r;
	q->freed += *freed;
	q->removed += removed;
	q->unsent += unsent;
	q->l.published = q->l.published > *freed ? q->l.published - *freed : 0;
	return ledger_save(q->statefd, &q->l);
}

/*
 * Engine hook: records what this capture holds, for the other handlers to count. Called under the lock. A full
 * in-flight table is an error: the others would not count these bytes.
 */
static int hook_reserve(void *ctx, uint64_t bytes, uint64_t pending, bool late)
{
	struct session *q = ctx;
	struct inflight *f = ledger_inflight(&q->l, q->pid, q->start);
	bool lazy;

	if (!f)
		return -ENOSPC;
	f->bytes = bytes;
	f->pending = pending;
	/*
	 * Alone (hook_used() just read the ledger, under this lock), the progress is written once, as lazy, and no more:
	 * a capture that comes meanwhile measures this one (hook_used), and this one writes again at its next chunk,
	 * where it sees that one. A late file system (btrfs) shows nothing of it in statfs yet: written each chunk.
	 */
	lazy = q->others == 0 && q->ahead > 0 && !late;
	if (lazy && f->lazy)
		return 0;
	f->lazy = lazy;
	f->ahead = q->ahead;
	return ledger_save(q->statefd, &q->l);
}

/*
 * Lets spend() add to the directory what fits under MaxUse, under the lock, as a capture reserves its core: it is
 * given the bytes stored and those the other captures in flight hold, and the stored bytes are counted afresh
 * after it. 0, spend()'s -errno, or the ledger's.
 */
int session_spend(struct session *q, int (*spend)(void *ctx, uint64_t used, uint64_t pending), void *ctx)
{
	uint64_t used, pending;
	int r = take_ledger(q);

	if (r < 0)
		return r;
	r = hook_used(q, &used, &pending);
	if (r == 0)
		r = spend(ctx, used, pending);
	(void) recount(q->dirfd, q->dev, &q->l);
	return put_ledger(q, r);
}

/*
 * What the stored cores in dirfd and every capture in flight take (u->used), and of it what statfs does not show
 * yet (u->pending): for a file beside the cores written by no capture (the fetch step's downloads). Read under the
 * lock; nothing written. 0 or -errno.
 */
int session_used(int dirfd, struct side_use *u)
{
	struct session q;
	int r = session_open(&q, dirfd);

	if (r == 0 && (r = lock(&q)) == 0) {
		r = hook_used(&q, &u->used, &u->pending);
		unlock(&q);
	}
	fd_close(&q.statefd);
	return r;
}

/*
 * The capture is uid's crash: its vacuum makes room from uid's own cores alone once they take more than share of
 * max_use (MaxUsePerUser= of MaxUse=, resolved on the file system as the engine sees it), so that one user's crash
 * loop cannot evict everyone else's cores.
 */
void session_share(struct session *q, uid_t uid, const struct size_spec *share, const struct size_spec *max_use)
{
	q->share_uid = uid;
	q->share_of = *share;
	q->max_use = *max_use;
	q->have_share = true;
}

void session_hooks(struct session *q, struct engine_hooks *h)
{
	*h = (struct engine_hooks) { .lock = hook_lock, .unlock = hook_unlock, .used = hook_used,
				     .make_room = hook_make_room, .reserve = hook_reserve, .ctx = q };
}

/*
 * Counts size bytes as stored (0 when nothing was) and leaves in this capture's record what it still holds: bytes
 * not counted as stored (the raw core of a compressed one, open for its analysis) and its held core. A record
 * that holds neither and names no crash, or with done, is dropped; one that names its crash is marked stored, and
 * stays until the entry is written (done). 0 or -errno.
 */
static int settle_capture(struct session *q, uint64_t size, uint64_t bytes, uint64_t ino, uint64_t held, bool done)
{
	int r = take_ledger(q);
	size_t i = 0;
	/* A core held needs a record to be held by: made where the capture had none (its table was full then). */
	struct inflight *f = r < 0 ? NULL : held && !mine(q, NULL) ? ledger_inflight(&q->l, q->pid, q->start) : mine(q, &i);

	if (r < 0)
		return r;
	if (f && (done || (bytes == 0 && held == 0 && f->held == 0 && f->crash.pid == 0))) {
		ledger_drop_inflight(&q->l, i);
	} else if (f) {
		f->bytes = bytes;
		f->pending = 0;
		f->stored = 1;
		f->core_ino = ino;
		if (held)
			f->held = held;
		/* Its entry follows: whoever names the crash should this handler die waits a moment for it first. */
		f->sending = true;
		q->sending = true;
	}
	q->l.published += size;
	return put_ledger(q, 0);
}

/*
 * The capture is about to be published as inode ino, in the write that counts it: size bytes stored, bytes still
 * held until session_close() (the raw core of a compressed one, open for its analysis), and held (its inode, or 0),
 * the core its analysis reads from here on, which no vacuum removes meanwhile. The name comes after this write: a
 * handler killed between them is named by the next as failed, its core not found under its name, and the count of
 * stored bytes is made afresh by the next capture. 0 or -errno.
 */
int session_publish(struct session *q, uint64_t size, uint64_t bytes, uint64_t ino, uint64_t held)
{
	return settle_capture(q, size, bytes, ino, held, false);
}

/*
 * The crash's entry is about to be sent: should this handler die before its end, the one that names the crash
 * waits a moment for that entry first (crash_report_orphans, capture_lost). A write only where its publication did
 * not say so already (session_publish). 0 or -errno.
 */
int session_sending(struct session *q)
{
	struct inflight *f;
	int r;

	if (q->sending)
		return 0;
	q->sending = true;
	r = take_ledger(q);
	if (r < 0)
		return r;
	f = mine(q, NULL);
	if (f)
		f->sending = true;
	return put_ledger(q, 0);
}

/*
 * Socket mode's server: the record of its process pid for a crash, which has died, copied into *f and taken out of
 * the ledger, under the lock. 1, 0 when there is none (another handler dropped it as dead first), or -errno.
 */
int session_take(struct session *q, pid_t pid, struct inflight *f)
{
	int r = lock(q), found = 0;

	if (r < 0)
		return r;
	/* Not load(): a pipe-mode handler's crash it would find dead is for a pipe-mode handler to name. */
	r = ledger_load(q->statefd, &q->l);
	for (size_t i = 0; r == 0 && !found && i < q->l.n_inflight; i++) {
		if (q->l.inflight[i].pid != pid)
			continue;
		*f = q->l.inflight[i];
		ledger_drop_inflight(&q->l, i);
		found = 1;
		r = ledger_save(q->statefd, &q->l);
	}
	unlock(q);
	return r < 0 ? r : found;
}



/*
 * An admin's removal (coresinkctl remove and vacuum), under the ledger's lock as a capture's vacuum is: each core
 * named is removed as vacuum removes one, unless a capture holds it (its analysis still reads it), and then the
 * ledger's count of stored bytes is set from what the directory holds, so that MaxUse is right at once. Nothing
 * else of the ledger changes: a dead handler's record stays for the next capture to name. result[i] is 0 (removed,
 * its bytes added to *freed and its upload still pending in unsent[i]), -EBUSY (held), -ENOENT (no core of
 * coresink's) or -errno. 0, or -errno where the ledger could not be taken (nothing removed).
 */
int session_remove(int dirfd, char *const *names, size_t n, int *result, bool *unsent, uint64_t *freed)
{
	uint64_t held[LEDGER_INFLIGHT_MAX], bytes;
	struct stat st;
	struct ledger *l = calloc(1, sizeof(*l));
	size_t n_held = 0;
	_cleanup_close_ int fd = statefile_open(dirfd, LEDGER_FILE);
	int r;

	*freed = 0;
	if (fd < 0 || !l) {
		free(l);
		return fd < 0 ? fd : -ENOMEM;
	}
	r = flock(fd, LOCK_EX) < 0 ? -errno : ledger_load(fd, l);
	for (size_t i = 0; r == 0 && i < l->n_inflight; i++)
		if (l->inflight[i].held)
			held[n_held++] = l->inflight[i].held;
	for (size_t i = 0; r == 0 && i < n; i++) {
		result[i] = vacuum_remove(dirfd, names[i], held, n_held, &bytes, &unsent[i]);
		*freed += result[i] == 0 ? bytes : 0;
	}
	if (r == 0)
		r = fstat(dirfd, &st) < 0 ? -errno : recount(dirfd, st.st_dev, l);
	if (r == 0)
		r = ledger_save(fd, l);
	(void) flock(fd, LOCK_UN);
	free(l);
	return r;
}

/*
 * The look at the kernel's drops of session_kernel_skips() on the ledger loaded under the lock: kmsg_seq and
 * kmsg_at moved where it was this handler's turn (the caller saves). 1 with ks to report, 0, or -errno.
 */
static int kernel_skips(struct session *q, uint64_t now_ms, uint64_t storm_usec, struct kskip *ks)
{
	bool fresh = q->l.kmsg_at == 0;
	int r;

	if (q->l.kmsg_at && now_ms < q->l.kmsg_at + KSKIP_INTERVAL_MS)
		return 0;
	r = kskip_scan(fresh ? 0 : q->l.kmsg_seq, fresh ? storm_usec : 0, ks);
	if (r < 0)
		return r;
	q->l.kmsg_seq = ks->last;
	q->l.kmsg_at = now_ms;
	return ks->count > 0 || ks->held_back > 0;
}

/*
 * The capture's end, in one write of the ledger: its record dropped, and, with w (pipe mode), the look at what the
 * kernel dropped meanwhile when it is this handler's turn (session_kernel_skips(), into ks). The ledger is closed. 1
 * with ks to report, 0, or -errno.
 */
int session_end(struct session *q, const struct kskip_when *w, struct kskip *ks)
{
	int r, turn = 0;
	size_t i;

	if (q->statefd < 0)
		return 0;
	r = take_ledger(q);
	if (r == 0 && mine(q, &i))
		ledger_drop_inflight(&q->l, i);
	if (r == 0 && w)
		turn = kernel_skips(q, w->now_ms, w->storm_usec, ks);
	if (r == 0)
		r = put_ledger(q, 0);
	fd_close(&q->statefd);
	return r < 0 ? r : turn;
}

void session_close(struct session *q)
{
	(void) session_end(q, NULL, NULL);
}

/*
 * The crash-rate windows this crash of uid counts in (the program's, its user's, everyone's) and what they decide
 * (rate_decide()), in the loaded ledger. A user's window only where it counts: a share of a global budget.
 */
static void rate_windows(struct session *q, const char *exe, uid_t uid, uint64_t now, const struct rate_config *rc,
			 struct rate_verdict *v)
{
	struct rate_entry *all, *mine, *user = NULL;
	char who[24];

	(void) snprintf(who, sizeof(who), "%u", (unsigned)uid);
	all = ledger_rate(&q->l, 0, NULL);
	if (rc->global_burst && rc->user_burst)
		user = ledger_rate(&q->l, rate_key(RATE_USER, who), NULL);
	mine = ledger_rate(&q->l, rate_key(RATE_EXE, exe), user);
	*v = rate_decide(mine, user, all, now, rc);
}

/*
 * The admission's one write of the ledger: the crash-rate limits applied to this crash of uid (rate_decide()), and,
 * where it may be stored and crash is given, what session_begin() does in the same pass (the dead handlers'
 * captures swept out, the stored cores counted afresh, the crash and its entry's id recorded). Under the lock.
 * 0 or -errno.
 */
int session_admit(struct session *q, const char *exe, uid_t uid, uint64_t now, const struct rate_config *rc,
		  const struct ledger_crash *crash, const char *entry, uint64_t ahead, struct rate_verdict *v)
{
	struct inflight *f;
	int r = lock(q);

	*v = (struct rate_verdict) { .allowed = true };
	if (r < 0)
		return r;
	r = ledger_load(q->statefd, &q->l);
	if (r == 0)
		rate_windows(q, exe, uid, now, rc, v);
	/* Suppressed, the windows alone change: gone handlers are swept by the next capture (a /proc read each). */
	if (r == 0 && v->allowed && crash) {
		sweep(q);
		f = ledger_inflight(&q->l, q->pid, q->start);
		/* Lazy from the start: its handler writes its progress only where another capture is in flight. */
		q->ahead = ahead;
		if (f) {
			f->crash = *crash;
			(void) snprintf(f->entry, sizeof(f->entry), "%s", entry ? entry : "");
			f->lazy = ahead > 0;
			f->ahead = ahead;
		}
		r = recount(q->dirfd, q->dev, &q->l);
	}
	return put_ledger(q, r);
}

/* Applies the crash-rate limits to this crash of uid (see rate_decide()), under the lock. 0 or -errno. */
int session_rate(struct session *q, const char *exe, uid_t uid, uint64_t now, const struct rate_config *rc,
		 struct rate_verdict *v)
{
	int r = lock(q);

	*v = (struct rate_verdict) { .allowed = true };
	if (r < 0)
		return r;
	/* The windows only: gone handlers are dropped by the next capture's pass (a /proc read each, kept off this). */
	r = ledger_load(q->statefd, &q->l);
	if (r == 0) {
		rate_windows(q, exe, uid, now, rc, v);
		r = ledger_save(q->statefd, &q->l);
	}
	unlock(q);
	return r;
}

/*
 * What the kernel dropped over kernel.core_pipe_limit since the last look, into ks (kskip.c), for one handler a
 * second at most: the kernel log is read whole, under the lock, so that no two handlers report the same record. A
 * new ledger has no place in the log yet: it reports the drops logged from storm_usec on (microseconds since boot),
 * those of the storm that made it, not what the log held before. 1 with ks to report, 0 when it is not this
 * handler's turn or nothing was dropped, or -errno.
 */
int session_kernel_skips(struct session *q, uint64_t now_ms, uint64_t storm_usec, struct kskip *ks)
{
	int r = lock(q), turn;

	if (r < 0)
		return r;
	r = ledger_load(q->statefd, &q->l);
	turn = r < 0 ? r : kernel_skips(q, now_ms, storm_usec, ks);
	if (turn >= 0 && q->l.kmsg_at == now_ms)
		r = ledger_save(q->statefd, &q->l);
	unlock(q);
	return r < 0 ? r : turn;
}
