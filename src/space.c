/* space.c: the free-space policy: how many bytes a capture may write next without crossing the reserve. */
#include "space.h"

/*
 * Blocks kept back on top of the reserve for what a write allocates besides data (extent and indirect blocks,
 * journal), so that the reserve holds on ext4 and xfs and not only on tmpfs.
 */
#define METADATA_BLOCKS 32

/* Turns a size spec into bytes for a file system of total bytes. */
uint64_t space_resolve(const struct size_spec *spec, uint64_t total)
{
	uint64_t v = spec->value;

	if (spec->percent)
		v = total / 100 * spec->value + total % 100 * spec->value / 100;
	return v < spec->cap ? v : spec->cap;
}

/*
 * Returns how many of the want bytes may be written now: all of them while the file system keeps the reserve
 * and a metadata margin after the write, fewer (whole blocks) when it gets close, 0 when it is there.
 */
uint64_t space_budget(const struct space_fs *fs, const struct size_spec *keep_free, uint64_t want)
{
	uint64_t block = fs->block ? fs->block : 1;
	uint64_t floor = space_resolve(keep_free, fs->total);
	uint64_t margin = METADATA_BLOCKS * block;
	uint64_t room;

	if (floor > UINT64_MAX - margin || fs->avail <= floor + margin)
		return 0;
	room = fs->avail - floor - margin;
	if (room >= want)
		return want;
	return room / block * block;
}
