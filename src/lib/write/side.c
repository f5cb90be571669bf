/*
 * side.c: the room for a file the handler writes beside the cores (the stacks it gives the journal, the modules it
 * keeps, the debug info it fetches, a retrace's copy of a core), asked of the policy a core's chunks ask
 * (space_budget): above KeepFree with the same metadata margin and what ext4 may take on its own, under MaxUse with
 * what the caller counts (stored cores, captures in flight). With room.c, the only place that reads a file
 * system's free space: a side file cannot take what a capture in flight was promised.
 */
#include <errno.h>
#include <linux/magic.h>
#include <sys/statfs.h>

#include "room.h"
#include "side.h"

static int space_in_of(int fd, struct space_in *in)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return -errno;
	*in = (struct space_in) {
		.avail = (uint64_t)sfs.f_bavail * (uint64_t)sfs.f_frsize,
		.total = (uint64_t)sfs.f_blocks * (uint64_t)sfs.f_frsize,
		.block = (uint64_t)sfs.f_frsize,
		.slack = (unsigned long)sfs.f_type == EXT4_SUPER_MAGIC ? ROOM_EXT4_SLACK : 0,
		.max_core = UINT64_MAX, .rlimit = UINT64_MAX,
	};
	return 0;
}

/* fd's file system as keep_free and max_use resolve on it, into s. 0 or -errno. */
int side_space(int fd, const struct size_spec *keep_free, const struct size_spec *max_use, struct side_space *s)
{
	struct space_in in = { 0 };
	int r = space_in_of(fd, &in);

	if (r < 0)
		return r;
	*s = (struct side_space) { .total = in.total, .avail = in.avail,
				   .keep_free = space_resolve(keep_free, in.total),
				   .max_use = space_resolve(max_use, in.total) };
	return 0;
}

/*
 * The bytes a side file may take now on fd's file system, used bytes counted against max_use; *which names the
 * limit that bound it (LIMIT_KEEP_FREE or LIMIT_MAX_USE). max_use NULL: no bound (a file MaxUse= does not count).
 * u's bytes counted as a chunk's room counts the other captures. 0 where statfs fails: nothing is written blind.
 */
uint64_t side_room(int fd, const struct size_spec *keep_free, const struct size_spec *max_use,
		   const struct side_use *u, enum limit *which)
{
	struct space_in in = { 0 };

	*which = LIMIT_KEEP_FREE;
	if (space_in_of(fd, &in) < 0)
		return 0;
	in.keep_free = *keep_free;
	in.max_use = max_use ? *max_use : SPACE_UNBOUNDED;
	in.used = u->used;
	in.pending = u->pending;
	return space_budget(&in, UINT64_MAX, which);
}
