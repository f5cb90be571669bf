/*
 * minicore.h: a minimal core, made while the core streams in: the ELF header, every program header, the notes
 * (every thread's registers, the signal, the file mappings, auxv), every thread's stack from its stack pointer up,
 * the pages of the files' own mappings the kernel dumped (ELF headers, data, relocations), the vDSO, and the bytes
 * of the dynamic linker's module list. Every other segment stays listed, with no bytes in the file.
 */
#ifndef CORESINK_MINICORE_H
#define CORESINK_MINICORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linkmap.h"

/* How far into the core the headers and notes may reach: a thousand threads' notes take ~4 MiB. */
#define MINICORE_HEAD_MAX (64 << 20)

struct minicore_stats {
	bool minimal;           /* the output is a minimal core; false: the core passed whole (why says why) */
	const char *why;
	unsigned threads;       /* stacks kept */
	unsigned stacks_cut;    /* of them, cut at MinimalStackSizeMax */
	unsigned modules;       /* link_map entries found */
	int linkmap_error;      /* why the module list was not (all) read, or 0 */
	uint64_t stack_bytes, file_bytes, linkmap_bytes;   /* kept of each, in the file */
	uint64_t input;         /* bytes of the core read from the kernel */
};

struct mc_piece;

struct minicore {
	int in;                 /* the core from the kernel */
	int memfd;              /* the crashed process's /proc/PID/mem, or -1: no module list then */
	uint64_t stack_max;     /* per thread */
	bool planned;
	unsigned char *head;    /* the core's first bytes, read before anything is decided */
	size_t head_len;
	unsigned char *prefix;  /* the output's headers and notes */
	size_t prefix_len, prefix_pos;
	struct mc_piece *pieces;   /* the input after the notes, in order: kept, masked or dropped */
	size_t n_pieces, cur;
	uint64_t cur_done;
	struct span64 *masks;   /* the bytes kept of masked pages, sorted */
	size_t n_masks;
	int devnull;
	char *scratch;
	struct minicore_stats st;
	int silence_ms;         /* the input may say nothing this long, then it is taken as ended (0: for ever) */
	bool silent;            /* it ended so */
};

void minicore_init(struct minicore *m, int in, int memfd, uint64_t stack_max);
ssize_t minicore_read(struct minicore *m, void *buf, size_t n, unsigned long *calls);
void minicore_free(struct minicore *m);

#endif
