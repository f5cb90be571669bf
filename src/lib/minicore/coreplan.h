/*
 * coreplan.h: the plan of a minimal core, from the core's headers and notes alone (and where the module list lies):
 * which bytes of the rest of the stream are kept, and the headers the kept bytes get. No I/O: minicore.c streams it.
 */
#ifndef CORESINK_COREPLAN_H
#define CORESINK_COREPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linkmap.h"

#define COREPLAN_THREADS_MAX 16384
#define COREPLAN_FILES_MAX 65536

enum piece_kind {
	PIECE_KEEP,    /* written as it comes */
	PIECE_MASK,    /* written with every byte outside the plan's masks zeroed */
	PIECE_DROP,    /* read and dropped */
};

/* A run of the input after the notes: [in_off, in_off + len), at vaddr in the process's memory when kept. */
struct mc_piece {
	uint64_t in_off, len, vaddr;
	enum piece_kind kind;
};

/* What the notes tell: each thread's stack pointer, the executable's headers, the vDSO, the file mappings. */
struct core_notes {
	uint64_t sp[COREPLAN_THREADS_MAX];
	uint64_t tp[COREPLAN_THREADS_MAX];   /* each thread's thread pointer: its glibc TCB, 0 where not known */
	unsigned threads;
	struct linkmap_start exe;
	uint64_t vdso;                 /* AT_SYSINFO_EHDR, 0 when none */
	struct span64 *files;          /* NT_FILE's ranges, sorted by start (the kernel's order); NULL when none */
	size_t n_files;
};

struct coreplan {
	unsigned char *prefix;         /* ELF header, program headers, notes, padding: the output's first bytes */
	size_t prefix_len;
	uint64_t head_end;             /* input consumed by the header and notes */
	struct mc_piece *pieces;       /* the input from head_end on, in order */
	size_t n_pieces;
	struct span64 *masks;          /* bytes kept of masked pieces, by address, sorted and merged */
	size_t n_masks;
	unsigned threads, stacks_cut;
	uint64_t stack_bytes, file_bytes, linkmap_bytes;
};

int coreplan_need(const unsigned char *h, size_t len, uint64_t *need);
int coreplan_notes(const unsigned char *h, size_t len, struct core_notes *n);
int coreplan_build(const unsigned char *h, size_t len, struct core_notes *n, const struct linkmap *lm,
		   uint64_t stack_max, struct coreplan *p);
void coreplan_free(struct coreplan *p);
void core_notes_free(struct core_notes *n);

#endif
