/*
 * linkmap.h: where the dynamic linker's list of loaded modules lies in a process's memory: r_debug and each
 * link_map entry with its name. A minimal core keeps exactly these bytes: they are how gdb and elfutils learn which
 * file is loaded where, and they often lie in the heap, which is otherwise not kept.
 */
#ifndef CORESINK_LINKMAP_H
#define CORESINK_LINKMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads len bytes of the process's memory at addr: 0, or -errno when not all of them could be read. */
typedef int (*linkmap_reader)(void *ctx, uint64_t addr, void *buf, size_t len);

/* A run of bytes of the process's memory: [start, end). */
struct span64 {
	uint64_t start, end;
};

#define LINKMAP_SPANS_MAX 4096

struct linkmap {
	struct span64 spans[LINKMAP_SPANS_MAX];   /* the bytes to keep, in the order found */
	unsigned n;
	unsigned modules;     /* link_map entries found */
	int error;            /* why the walk stopped early: a read that failed (-errno), or 0 */
};

/* What the core's notes tell of the executable: its program headers' address and count (AT_PHDR, AT_PHNUM). */
struct linkmap_start {
	uint64_t phdr, phnum;
};

int linkmap_walk(const struct linkmap_start *s, linkmap_reader read, void *ctx, struct linkmap *lm);
int linkmap_read_fd(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
