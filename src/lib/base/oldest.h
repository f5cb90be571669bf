/* oldest.h: the one oldest-first trimmer (oldest.c). */
#ifndef CORESINK_OLDEST_H
#define CORESINK_OLDEST_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define OLDEST_NAME_MAX 256

/* What the trimmer needs of a file; the first member of the caller's own entries. */
struct oldest {
	char name[OLDEST_NAME_MAX];   /* beneath the caller's directory */
	struct timespec mtime;
	uint64_t bytes;               /* what it takes on disk */
};

/* Removes one entry (a struct oldest first): 0 with what it freed in *freed, or -errno to pass over it. */
typedef int (*oldest_rm_fn)(void *ctx, void *entry, uint64_t *freed);

void oldest_sort(void *list, size_t n, size_t size);
uint64_t oldest_remove(void *list, size_t n, size_t size, uint64_t need, oldest_rm_fn rm, void *ctx,
		       unsigned *removed);

#endif
