/* rescue.h: a core's stacks had from the process before a cut loses them, and given to a cut core (rescue.c). */
#ifndef CORESINK_RESCUE_H
#define CORESINK_RESCUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What all the threads' stacks may take together: more threads, less of each. */
#define RESCUE_MAX (64ULL << 20)

/* A piece of the core kept for a debugger: at in_off in the core, vaddr in the process, store_off in the store. */
struct rescue_piece {
	uint64_t in_off, len, vaddr, store_off;
	uint64_t planned;     /* len as planned: the process may have had less (rescue_read) */
};

struct rescue {
	struct rescue_piece *pieces;
	size_t n;
	uint64_t bytes;       /* planned */
	uint64_t read;        /* read from the process */
	unsigned threads, stacks_cut;
	uint64_t stack_each;  /* the bound of one thread's stack: MinimalStackSizeMax=, or less for many threads */
	int store;            /* the memfd holding what was read; -1 */
	unsigned char *prefix;  /* the minimal core's headers and notes (coreplan.c), its pieces to follow in order */
	size_t prefix_len;
};

/* What came of EarlyStacks= for one core, for its entry (CORESINK_STACKS=). */
struct rescue_stats {
	bool tried;           /* a full core, EarlyStacks=yes */
	bool read;            /* the stacks were read as the dump began */
	unsigned threads, stacks_cut;
	uint64_t stack_each;  /* each thread's bound */
	uint64_t bytes;       /* read */
	uint64_t us;          /* what reading took, while the kernel waited */
	uint64_t kept;        /* of the core's bytes, those kept before them */
	uint64_t replaced;    /* of the core's bytes that were stored, those that gave way to them (a limit's cut) */
	uint64_t added;       /* bytes given to a cut core after those kept (0: none) */
	uint64_t traced;      /* the bytes of the core made of them for the stack trace (0: none), where the stored
				 one is compressed as it came */
	const char *why;      /* why none were read, or none given: NULL where nothing was amiss */
};

int rescue_need(const unsigned char *head, size_t len, uint64_t *need);
int rescue_plan(const unsigned char *head, size_t len, int mem, uint64_t stack_max, struct rescue *r);
int rescue_read(struct rescue *r, int mem, int store);
int rescue_fit(uint64_t limit, const unsigned char *head, size_t len, const struct rescue *r, uint64_t *cut);
int rescue_apply(int out, uint64_t cut, const unsigned char *head, size_t len, const struct rescue *r, uint64_t *size);
int rescue_minimal(int out, const struct rescue *r, uint64_t *size);
void rescue_free(struct rescue *r);

#endif
