/* compress.h: the zstd stage of the engine: bytes in, a zstd frame out, through one bounded buffer. */
#ifndef CORESINK_COMPRESS_H
#define CORESINK_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*emit_fn)(void *ctx, const char *buf, size_t n);

/* What compressor_feed does besides taking its input. */
enum feed { FEED_MORE, FEED_FLUSH, FEED_END };

struct compressor {
	void *cctx;               /* ZSTD_CCtx */
	char *buf;
	size_t cap;
	uint64_t written;         /* bytes handed to emit */
	int level;                /* the level of the jobs now taken */
	int start;                /* the level it began at, the highest it takes */
	int workers;
};

/* Where compressor_pace moves the level: a rung down, the last rung, a rung back up (at most to the start). */
enum pace { PACE_SLOWER, PACE_RAW, PACE_FASTER };

/*
 * The rungs a compression steps down as it falls behind its input (compressor_pace): zstd's level 1, then its fast
 * levels, the last of which stores almost every block raw (in the frame: a raw block costs 3 bytes per 128 KiB).
 */
#define COMPRESS_RAW_LEVEL (-1000)

int compressor_init(struct compressor *z, int level, int workers);
int compressor_feed(struct compressor *z, const void *in, size_t n, enum feed how, emit_fn emit, void *ctx);
int compressor_pace(struct compressor *z, enum pace how);
void compressor_free(struct compressor *z);

#endif
