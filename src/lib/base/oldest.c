/*
 * oldest.c: the one oldest-first trimmer, of the core directory (vacuum.c) and of the fetch step's cache
 * (debuginfod.c): files sorted by their last write (then name), removed from the oldest on until enough bytes are
 * freed, the caller deciding for each whether it may go, and how.
 */
#include <stdlib.h>
#include <string.h>

#include "oldest.h"

static int older(const void *a, const void *b)
{
	const struct oldest *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sorts the n of list (entries of size bytes, each beginning with a struct oldest) oldest first. */
void oldest_sort(void *list, size_t n, size_t size)
{
	if (n > 1)
		qsort(list, n, size, older);
}

/*
 * Removes the entries of list (sorted by oldest_sort()) from the oldest on, by rm (0, with what it freed, or -errno
 * to pass over one), until need bytes are freed. What was freed; how many went into *removed (may be NULL).
 */
uint64_t oldest_remove(void *list, size_t n, size_t size, uint64_t need, oldest_rm_fn rm, void *ctx,
		       unsigned *removed)
{
	uint64_t freed = 0, f;

	for (size_t i = 0; i < n && freed < need; i++) {
		f = 0;
		if (rm(ctx, (char *)list + i * size, &f) < 0)
			continue;
		freed += f;
		if (removed)
			(*removed)++;
	}
	return freed;
}
