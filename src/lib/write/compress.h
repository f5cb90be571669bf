/*
 * compress.h: the zstd stage of the engine: bytes in, zstd frames out, through one bounded buffer. A chunk zstd
 * cannot keep pace with goes out stored (compressor_store): a frame of raw blocks, zero pages as RLE blocks.
 */
#ifndef CORESINK_COMPRESS_H
#define CORESINK_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

typedef int (*emit_fn)(void *ctx, const char *buf, size_t n);
/* Writes the n buffers of iov (total bytes in all) at the end of the output, in order; may change iov. */
typedef int (*emitv_fn)(void *ctx, struct iovec *iov, int n, size_t total);

/* What compressor_feed does besides taking its input. */
enum feed { FEED_MORE, FEED_FLUSH, FEED_END };

struct compressor {
	void *cctx;               /* ZSTD_CCtx */
	char *buf;
	size_t cap;
	uint64_t written;         /* bytes handed to emit */
	bool open;                /* a zstd frame is begun and not ended */
	struct iovec *iov;        /* compressor_store's, for up to store_max bytes of input */
	unsigned char *headers;
	size_t store_max;
};

int compressor_init(struct compressor *z, int level, int workers, size_t store_max);
int compressor_feed(struct compressor *z, const void *in, size_t n, enum feed how, emit_fn emit, void *ctx);
int compressor_store(struct compressor *z, const char *in, size_t n, emit_fn emit, emitv_fn emitv, void *ctx);
int compressor_leave_open(struct compressor *z, emit_fn emit, void *ctx);
void compressor_free(struct compressor *z);

#endif
