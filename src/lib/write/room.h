/* room.h: how much of the next chunk a capture may write: free space, KeepFree, MaxUse and old cores removed. */
#ifndef CORESINK_ROOM_H
#define CORESINK_ROOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "space.h"

#include <sys/statfs.h>

/*
 * What ext4 may take past the end of what is written without a reservation (the run next to the chunk under
 * writeback, a compressed copy): mballoc normalizes a request for a growing file up to 8 MiB of preallocation,
 * given back only when the file is truncated or closed. 786 KiB under KeepFree were measured without this.
 */
#define ROOM_EXT4_SLACK (8ULL << 20)

struct room {
	int out;
	const struct engine_opts *o;
	struct engine_stats *st;
	const struct engine_hooks *hooks;  /* o->hooks until one of them fails */
	const struct engine_hooks *locker; /* o->hooks, whose lock is taken even after a failure */
	bool unreserved;          /* the next chunk is not preallocated: pending for the others (set as held is) */
	bool ext4;                /* the output is on ext4 (or ext2/3): it may take ROOM_EXT4_SLACK past what is written */
	bool btrfs;               /* the output is on btrfs: copy on write, statfs late */
	bool have_baseline;       /* baseline holds the free space when the capture began (+ what it holds) */
	uint64_t baseline;
	uint64_t raw_avail;       /* what statfs said at the last check */
	struct statfs last;       /* the last statfs that worked, for a check that fails after it */
	uint64_t held;            /* what the capture holds on disk now: set by the caller before room_plan() */
	uint64_t unwritten;       /* of held, what is not written yet (stored frames' carry, grid.c): not in statfs */
};

void room_init(struct room *c, int out, const struct engine_opts *o, struct engine_stats *st);
int room_plan(struct room *c, size_t *want, enum limit *which);
int room_fits(struct room *c, uint64_t size, enum limit *which);
int room_cure(struct room *c, uint64_t need);
void room_result(const struct room *c);
int room_for_core(int out, const struct engine_opts *o, struct engine_stats *st);
int room_lock(struct room *c);
void room_unlock(struct room *c);

#endif
