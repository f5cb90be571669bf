/* compress.h: the zstd stage of the engine: bytes in, a zstd frame out, through one bounded buffer. */
#ifndef CORESINK_COMPRESS_H
#define CORESINK_COMPRESS_H

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
};

int compressor_init(struct compressor *z, int level, int workers);
int compressor_feed(struct compressor *z, const void *in, size_t n, enum feed how, emit_fn emit, void *ctx);
void compressor_free(struct compressor *z);

#endif
