/*
 * room.c: how much of the next chunk a capture may write, asked before each chunk under the caller's lock: free
 * space as statfs shows it, made trustworthy on file systems that show it late (btrfs), above KeepFree and what the
 * file system may take on its own (ext4), room under MaxUse counting the other captures (the hooks), and old cores
 * removed to make room when either is short. The numbers go to the pure policy, space_budget().
 */
#include <errno.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "room.h"

/* statfs showing this much more than the capture can account for: the file system reports its bytes late. */
#define LATE_SLACK (1024 * 1024)

/* A planner for a capture into out. Its chunks are preallocated unless the caller says otherwise (unreserved). */
void room_init(struct room *c, int out, const struct engine_opts *o, struct engine_stats *st)
{
	struct statfs sfs;

	*c = (struct room) { .out = out, .o = o, .st = st, .hooks = o->hooks, .locker = o->hooks };
	if (fstatfs(out, &sfs) < 0)
		sfs.f_type = 0;
	c->ext4 = (unsigned long)sfs.f_type == EXT4_SUPER_MAGIC;
	c->btrfs = (unsigned long)sfs.f_type == BTRFS_SUPER_MAGIC;
}

/* Takes a hook's result: after its first error the hooks are off for the rest of the copy. */
static void hook_result(struct room *c, int r)
{
	if (r >= 0)
		return;
	if (c->st->hook_error == 0)
		c->st->hook_error = r;
	c->hooks = NULL;
}

/* What statfs says an unprivileged writer may still use. */
static uint64_t avail_bytes(const struct statfs *sfs)
{
	return (uint64_t)sfs->f_bavail * (uint64_t)sfs->f_frsize;
}

/*
 * The free space statfs reports, made trustworthy: never more than was free when the capture began less what it
 * has put on disk since (space_trusted_avail), nor than statfs says less what the capture holds but has not written
 * yet (unwritten). A file system seen to report late is remembered (late_statfs).
 */
static uint64_t trusted_avail(struct room *c, const struct statfs *sfs)
{
	uint64_t trusted, avail;

	c->raw_avail = avail_bytes(sfs);
	avail = c->raw_avail > c->unwritten ? c->raw_avail - c->unwritten : 0;
	if (!c->have_baseline) {
		/*
		 * A copy that continues a capture (its compression) starts from what the first copy trusted: on a file
		 * system that reports late, statfs does not show yet the raw core that copy just wrote.
		 */
		c->baseline = c->o->baseline ? c->o->baseline : c->raw_avail + c->held;
		c->have_baseline = true;
		c->st->late_statfs = (unsigned long)sfs->f_type == BTRFS_SUPER_MAGIC;
	}
	trusted = space_trusted_avail(avail, c->baseline, c->held);
	if (avail > trusted + LATE_SLACK)
		c->st->late_statfs = true;
	if (c->raw_avail < c->st->min_avail)
		c->st->min_avail = c->raw_avail;
	return trusted;
}

/*
 * The file system's numbers for the next chunk. A statfs that fails once it worked (EIO on a dying disk, EINTR)
 * does not stop the capture: the last numbers stand in, their free space what the baseline leaves (the free space
 * when the capture began, less every byte it has put on disk since), which bounds it anyway on a file system that
 * reports late; what other writers took meanwhile is not seen. The first error is said in the entry. 0, or -1 with
 * errno when none ever worked.
 */
static int space_statfs(struct room *c, struct statfs *sfs)
{
	/* Once more at once: a signal (EINTR), or a moment's trouble, is not a reason to go on blind. */
	if (fstatfs(c->out, sfs) == 0 || fstatfs(c->out, sfs) == 0) {
		c->last = *sfs;
		return 0;
	}
	if (c->st->statfs_error == 0)
		c->st->statfs_error = -errno;
	/* A copy that continues a capture (socket mode's check before the dump; the compression) has its numbers. */
	if (!c->have_baseline && c->o->baseline && c->o->last) {
		c->last = *c->o->last;
		c->baseline = c->o->baseline;
		c->have_baseline = true;
	}
	if (!c->have_baseline) {
		c->st->failed_at = "reading the free space";
		return -1;
	}
	*sfs = c->last;
	/* Free space unknown: not more than the baseline allows (trusted_avail), which the blocks below give. */
	sfs->f_bavail = (c->baseline > c->held ? c->baseline - c->held : 0) / (sfs->f_frsize ? sfs->f_frsize : 1);
	return 0;
}

/* Reads what the policy needs: the file system's numbers and the bytes other cores use. */
static int read_space(struct room *c, struct space_in *in)
{
	const struct engine_opts *o = c->o;
	struct statfs sfs;
	uint64_t used = 0, pending = 0;

	if (c->hooks)
		hook_result(c, c->hooks->used(c->hooks->ctx, &used, &pending));
	*in = (struct space_in) {
		/* MaxCoreSize and RLIMIT_CORE count the core's bytes, compressed or not. */
		.avail = UINT64_MAX, .total = UINT64_MAX, .block = PAGE_BYTES, .written = c->st->input,
		.held = c->held, .used = used, .pending = pending,
		.max_core = o->max_core, .rlimit = o->rlimit, .keep_free = o->keep_free,
		.max_use = c->hooks ? o->max_use : SPACE_UNBOUNDED,
	};
	if (o->check_space) {
		if (space_statfs(c, &sfs) < 0)
			return -errno;
		in->avail = trusted_avail(c, &sfs);
		in->total = (uint64_t)sfs.f_blocks * (uint64_t)sfs.f_frsize;
		in->block = (uint64_t)sfs.f_frsize;
		in->slack = c->ext4 ? ROOM_EXT4_SLACK : 0;
		c->st->reserve = space_resolve(&o->keep_free, in->total);
	}
	return 0;
}

/*
 * After a vacuum freed bytes: makes the file system show them, and starts a new baseline from what it shows. A
 * file system that reports unlinks late (btrfs until its transaction commits, xfs until its background inode work
 * runs) is synced first, or the room just made would stay invisible and the core would not get it.
 */
static int show_freed(struct room *c, uint64_t avail_before, uint64_t freed)
{
	struct statfs sfs;
	uint64_t t0;

	if (fstatfs(c->out, &sfs) < 0)
		return -errno;
	if (avail_bytes(&sfs) < avail_before + freed) {
		t0 = clock_ns();
		if (syncfs(c->out) < 0 || fstatfs(c->out, &sfs) < 0)
			return -errno;
		c->st->syncs++;
		c->st->sync_ns += clock_ns() - t0;
	}
	/* Synced or not late: what statfs shows now includes this capture's own bytes. */
	c->baseline = avail_bytes(&sfs) + c->held;
	return 0;
}

/*
 * Asks the hooks to delete old cores for need bytes, and, when free space (not MaxUse, which counts cores in the
 * ledger) is what is short, makes the room show. Whether any was made, or -errno.
 */
static int make_room(struct room *c, uint64_t need, uint64_t total, enum limit which)
{
	uint64_t freed = 0;
	int r;

	if (!c->hooks)
		return 0;
	hook_result(c, c->hooks->make_room(c->hooks->ctx, need, total, &freed));
	if (freed == 0)
		return 0;
	/* raw_avail is from the check just made (read_space), before anything was removed. */
	r = which == LIMIT_KEEP_FREE ? show_freed(c, c->raw_avail, freed) : 0;
	return r < 0 ? r : 1;
}

/*
 * The disk refused blocks that the room allowed (ENOSPC or EDQUOT where statfs showed room: another writer, a file
 * system's own reservations): old cores are deleted for need bytes, as for the reserve, since the new crash matters
 * more than the oldest one. Under the lock. Whether any room was made, or -errno.
 */
int room_cure(struct room *c, uint64_t need)
{
	struct space_in in;
	int r = read_space(c, &in);

	return r < 0 ? r : make_room(c, need, in.total, LIMIT_KEEP_FREE);
}

/*
 * Decides how much of the next chunk may be written. When free space or the quota is short, old cores are deleted
 * first: the new crash matters more than the oldest one. *which says what bound the answer.
 */
int room_plan(struct room *c, size_t *want, enum limit *which)
{
	struct space_in in;
	uint64_t budget;
	int r = read_space(c, &in);

	if (r < 0)
		return r;
	budget = space_budget(&in, c->o->chunk, which);
	if (budget < c->o->chunk && (*which == LIMIT_KEEP_FREE || *which == LIMIT_MAX_USE))
		r = make_room(c, c->o->chunk - budget, in.total, *which);
	if (r < 0)
		return r;
	if (r > 0) {
		r = read_space(c, &in);
		if (r < 0)
			return r;
		budget = space_budget(&in, c->o->chunk, which);
	}
	/*
	 * What this capture may hold by the chunk's end, should every byte of it be data, and what of it the others
	 * cannot see in statfs: a sparse or compressing capture's chunk (it preallocates only as it writes) and what it
	 * holds unwritten, or everything it holds on a file system that reports late.
	 */
	if (c->hooks)
		hook_result(c, c->hooks->reserve(c->hooks->ctx, c->held + budget,
						 c->st->late_statfs ? c->held + budget :
						 (c->unreserved ? budget : 0) + c->unwritten, c->st->late_statfs));
	*want = (size_t)budget;
	return 0;
}

/*
 * Whether size more bytes fit the room as it is now, old cores left alone: 1, 0 with *which saying what is short,
 * or -errno. Asked under the lock, once, before the first chunk.
 */
int room_fits(struct room *c, uint64_t size, enum limit *which)
{
	struct space_in in;
	int r = read_space(c, &in);

	if (r < 0)
		return r;
	return space_budget(&in, size, which) >= size;
}

/* Takes the lock the hooks' owner provides, around a check and what it reserves. 0 or -errno. */
int room_lock(struct room *c)
{
	return c->locker && c->locker->lock ? c->locker->lock(c->locker->ctx) : 0;
}

void room_unlock(struct room *c)
{
	if (c->locker && c->locker->unlock)
		c->locker->unlock(c->locker->ctx);
}

/* What the room trusted, into its stats, for a copy that continues the capture (engine_opts' baseline and last). */
void room_result(const struct room *c)
{
	c->st->baseline = c->have_baseline ? c->baseline : 0;
	c->st->last = c->last;
}

/*
 * Whether a capture into out may store anything now, by the same checks as its first chunk (old cores removed to
 * make room included), under the hooks' lock: 1 when at least a page may be written, 0 when not (st->limit says what
 * bounds it), or -errno. Socket mode asks this before the kernel dumps a byte.
 */
int room_for_core(int out, const struct engine_opts *o, struct engine_stats *st)
{
	struct room c;
	size_t want = 0;
	int r;

	*st = (struct engine_stats) { .min_avail = UINT64_MAX };
	room_init(&c, out, o, st);
	r = room_lock(&c);
	if (r < 0)
		return r;
	r = room_plan(&c, &want, &st->limit);
	room_unlock(&c);
	room_result(&c);
	if (r < 0)
		return r;
	return want >= PAGE_BYTES;
}
