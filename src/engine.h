/* engine.h: the capture engine, shared by the handler and coresink-bench. */
#ifndef CORESINK_ENGINE_H
#define CORESINK_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse.h"

enum strategy {
	STRATEGY_SPLICE,        /* stdin -> private pipe of one chunk -> file */
	STRATEGY_READWRITE,     /* read-fill a buffer, write it */
	STRATEGY_NAIVE_SPLICE,  /* stdin -> file directly; for comparison only */
	_STRATEGY_MAX
};

enum prealloc {
	PREALLOC_KEEP_SIZE,     /* fallocate(FALLOC_FL_KEEP_SIZE) ahead of each chunk */
	PREALLOC_EXTEND,        /* fallocate(0): extends the size, trimmed at the end */
	PREALLOC_NONE,
	_PREALLOC_MAX
};

struct engine_opts {
	enum strategy strategy;
	enum prealloc prealloc;
	size_t chunk;             /* bytes per chunk, a multiple of the page size */
	size_t buffer;            /* read/write buffer, a multiple of the page size */
	size_t in_pipe;           /* F_SETPIPE_SZ for the input when it is a pipe; 0 leaves it */
	struct size_spec keep_free;
	bool hygiene;             /* sync_file_range + POSIX_FADV_DONTNEED behind the writes */
	bool check_space;         /* fstatfs before each chunk */
};

struct engine_stats {
	uint64_t bytes;           /* bytes in the file at the end */
	bool truncated;           /* the input had more than was stored */
	bool fell_back;           /* splice was refused and read/write took over */
	int fallback_error;       /* the errno that caused it */
	bool prealloc_fallback;   /* fallocate unsupported here: ftruncate preallocated instead */
	int space_error;          /* ENOSPC/EDQUOT met while writing (another writer took the room) */
	unsigned long in_calls;   /* read(2)/splice(2) calls on the input (naive splice: every call) */
	unsigned long out_calls;  /* write(2) buffers and splice(2) calls into the file */
	unsigned long chunks;
	uint64_t min_avail;       /* lowest free space seen before a chunk */
	uint64_t reserve;         /* KeepFree in bytes, as last resolved */
};

void engine_defaults(struct engine_opts *o);
int engine_copy(int in, int out, const struct engine_opts *o, struct engine_stats *st);
const char *strategy_to_string(enum strategy s);
int strategy_from_string(const char *s);

#endif
