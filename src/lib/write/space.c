/*
 * space.c: the storage policy: how many more bytes a capture may write, given free space above KeepFree, room under
 * MaxUse, MaxCoreSize, the process's RLIMIT_CORE and what was written so far (its size, and what of it takes disk
 * space: a sparse core's holes count against neither KeepFree nor MaxUse). Numbers in, a number out.
 */
#include "base.h"
#include "space.h"

/*
 * Blocks kept back on top of the reserve for what a write allocates besides data (extent and indirect blocks,
 * journal), so that the reserve holds on ext4 and xfs and not only on tmpfs. A 64 MiB capture on ext4 was seen to
 * use 24 such blocks; 64 leaves room for deeper extent trees (256 KiB with 4 KiB blocks).
 */
#define METADATA_BLOCKS 64

static const char *const limit_names[] = {
	[LIMIT_NONE] = "none",
	[LIMIT_KEEP_FREE] = "KeepFree",
	[LIMIT_MAX_USE] = "MaxUse",
	[LIMIT_MAX_CORE] = "MaxCoreSize",
	[LIMIT_RLIMIT] = "RLIMIT_CORE",
	[LIMIT_CUT_SHORT] = "the dump was cut short: the process was killed while dumping (SIGKILL, a stop timeout, the "
			    "OOM killer)",
	[LIMIT_SILENT] = "SocketSilenceSec",
};

DEFINE_STRING_TABLE_LOOKUP(limit, enum limit, limit_names, _LIMIT_MAX)

/* Turns a size spec into bytes for a file system of total bytes. */
uint64_t space_resolve(const struct size_spec *spec, uint64_t total)
{
	uint64_t v = spec->value;

	if (spec->percent)
		v = total / 100 * spec->value + total % 100 * spec->value / 100;
	return v < spec->cap ? v : spec->cap;
}

/*
 * The room for files beside the cores that are not a capture's (kept modules, fetched debug info): what MaxUse still
 * allows with used bytes counted (max_use: UINT64_MAX for no bound), and what is free above KeepFree, whichever is
 * less. Resolved bytes in (space_resolve()), bytes out.
 */
uint64_t space_room(uint64_t max_use, uint64_t used, uint64_t avail, uint64_t keep_free)
{
	uint64_t under = max_use > used ? max_use - used : 0, above = avail > keep_free ? avail - keep_free : 0;

	return under < above ? under : above;
}

/*
 * Free space above the reserve, the metadata margin, the file system's slack and what other captures will still
 * take, in whole blocks.
 */
static uint64_t free_room(const struct space_in *in)
{
	uint64_t block = in->block ? in->block : 1;
	uint64_t floor = space_resolve(&in->keep_free, in->total);
	uint64_t margin = METADATA_BLOCKS * block + (in->slack < UINT64_MAX / 2 ? in->slack : UINT64_MAX / 2);

	if (floor > UINT64_MAX - margin || margin + floor > UINT64_MAX - in->pending ||
	    in->avail <= floor + margin + in->pending)
		return 0;
	return (in->avail - floor - margin - in->pending) / block * block;
}

/*
 * The free space a capture may trust: what statfs says, but never more than was free when the capture began
 * (baseline) less what it has put on disk since. A file system that reports late (btrfs shows written, preallocated
 * and unlinked bytes in statfs only once its transaction commits) cannot make the capture write past the reserve.
 */
uint64_t space_trusted_avail(uint64_t avail, uint64_t baseline, uint64_t held)
{
	uint64_t left_of_baseline = baseline > held ? baseline - held : 0;

	return avail < left_of_baseline ? avail : left_of_baseline;
}

/* What is left of cap once used bytes are counted; 0 when they already exceed it. */
static uint64_t left(uint64_t cap, uint64_t used)
{
	return used < cap ? cap - used : 0;
}

static void tighten(uint64_t *budget, enum limit *which, uint64_t room, enum limit l)
{
	if (room < *budget) {
		*budget = room;
		*which = l;
	}
}

/*
 * Returns how many of the want bytes may be written now. When that is fewer than want, *which names the limit that
 * bound it (the first in the order KeepFree, MaxUse, MaxCoreSize, RLIMIT_CORE to give the smallest room).
 */
uint64_t space_budget(const struct space_in *in, uint64_t want, enum limit *which)
{
	uint64_t budget = want;
	uint64_t used = in->used > UINT64_MAX - in->held ? UINT64_MAX : in->used + in->held;

	*which = LIMIT_NONE;
	tighten(&budget, which, free_room(in), LIMIT_KEEP_FREE);
	tighten(&budget, which, left(space_resolve(&in->max_use, in->total), used), LIMIT_MAX_USE);
	tighten(&budget, which, left(in->max_core, in->written), LIMIT_MAX_CORE);
	tighten(&budget, which, left(in->rlimit, in->written), LIMIT_RLIMIT);
	return budget;
}
