/*
 * compress.c: the zstd stage of the engine. Input goes in as it comes; each full output buffer is handed to the
 * engine's writer, so memory stays bounded: one context at a fast level (level 1 looks back 512 KiB; an 8 MiB window
 * took the handler's peak RSS from 5.5 to 15.5 MiB, measured on a 1 GiB core), one output buffer of
 * ZSTD_CStreamOutSize(). The frame carries its checksum, so a damaged file is told from a core.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "base.h"
#include "compress.h"
#include "holes.h"

/*
 * zstd's job with threads: its smallest. It took the handler's peak RSS from 17.8 to 9.4 MiB on a 192 MiB crash,
 * at the same speed (1 GiB core-like, compressed as it came, median of 5: 0.82x the time of one thread, against
 * 0.85x with its default of 2 MiB at level 1).
 */
#define COMPRESS_JOB (512 * 1024)

/* RFC 8878: a frame's header as compressor_store writes it; a block's header, its largest size, its types. */
#define FRAME_HEADER 9
#define BLOCK_HEADER 3
#define BLOCK_MAX (128 * 1024)
#define BLOCK_RAW 0u
#define BLOCK_RLE 1u

/*
 * A compressor at level; with workers > 0, zstd compresses in that many threads of its own, a job of COMPRESS_JOB
 * each (the caller's thread then only feeds and writes). 0 or -ENOMEM/-EINVAL.
 */
int compressor_init(struct compressor *z, int level, int workers, size_t store_max)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	/* A block at most per page (runs change kind at pages) and per BLOCK_MAX, a header each, the frame's first. */
	size_t blocks = store_max / PAGE_BYTES + store_max / BLOCK_MAX + 2;

	*z = (struct compressor) { 0 };
	if (!c)
		return -ENOMEM;
	z->cctx = c;
	z->cap = ZSTD_CStreamOutSize();
	z->buf = malloc(z->cap);
	z->store_max = store_max;
	z->iov = calloc(2 * blocks + 1, sizeof(*z->iov));
	z->headers = calloc(1, FRAME_HEADER + blocks * (BLOCK_HEADER + 1));
	if (!z->buf || !z->iov || !z->headers) {
		compressor_free(z);
		return -ENOMEM;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)) ||
	    (workers > 0 && (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_nbWorkers, workers)) ||
			     ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_jobSize, COMPRESS_JOB))))) {
		compressor_free(z);
		return -EINVAL;
	}
	return 0;
}

/*
 * Compresses n bytes of in; FEED_FLUSH also writes out all zstd holds (its threads' jobs included), FEED_END
 * closes the frame. Every output buffer that fills goes to emit, which returns 0 or -errno. 0 or -errno (-EIO for an
 * error of zstd's own).
 */
int compressor_feed(struct compressor *z, const void *in, size_t n, enum feed how, emit_fn emit, void *ctx)
{
	static const ZSTD_EndDirective modes[] = {
		[FEED_MORE] = ZSTD_e_continue, [FEED_FLUSH] = ZSTD_e_flush, [FEED_END] = ZSTD_e_end,
	};
	ZSTD_inBuffer ib = { in, n, 0 };
	ZSTD_EndDirective mode = modes[how];
	size_t left;

	do {
		ZSTD_outBuffer ob = { z->buf, z->cap, 0 };
		int r;

		left = ZSTD_compressStream2(z->cctx, &ob, &ib, mode);
		if (ZSTD_isError(left))
			return -EIO;
		z->open = how != FEED_END || left > 0;
		if (ob.pos > 0) {
			r = emit(ctx, z->buf, ob.pos);
			if (r < 0)
				return r;
			z->written += ob.pos;
		}
	} while (how != FEED_MORE ? left > 0 : ib.pos < ib.size);
	return 0;
}

/* One block header (RFC 8878 3.1.1.2: Last_Block, Block_Type, Block_Size, little-endian) at h. */
static void block_header(unsigned char *h, bool last, unsigned type, size_t size)
{
	uint32_t v = (uint32_t)last | type << 1 | (uint32_t)size << 3;

	h[0] = (unsigned char)v;
	h[1] = (unsigned char)(v >> 8);
	h[2] = (unsigned char)(v >> 16);
}

/*
 * The blocks of the run [at, end) of in, zero (RLE blocks of one zero byte each) or data (raw blocks pointing into
 * in), at most BLOCK_MAX each, appended to z->iov from *n, their headers to z->headers from *h. The last header.
 */
static unsigned char *run_blocks(struct compressor *z, const char *in, size_t at, size_t end, bool zero, int *n,
				 size_t *h)
{
	unsigned char *hd = NULL;

	while (at < end) {
		size_t len = end - at < BLOCK_MAX ? end - at : BLOCK_MAX;

		hd = z->headers + *h;
		block_header(hd, false, zero ? BLOCK_RLE : BLOCK_RAW, len);
		hd[BLOCK_HEADER] = 0;
		z->iov[(*n)++] = (struct iovec) { hd, BLOCK_HEADER + (zero ? 1 : 0) };
		if (!zero)
			z->iov[(*n)++] = (struct iovec) { (void *)(uintptr_t)(in + at), len };
		*h += BLOCK_HEADER + 1;
		at += len;
	}
	return hd;
}

/*
 * n bytes of in (at most store_max) stored as they are: a zstd frame of its own (after the end of any frame begun:
 * a zstd file is one or more frames, which zstd, libzstd's streaming readers and coredumpctl read on), its single
 * segment of n bytes, its whole zero pages RLE blocks and the rest raw blocks written from in itself, with no copy
 * (emitv). No checksum: the frames zstd compresses carry theirs. What a chunk zstd falls behind on costs: a write,
 * as a raw core's, and a scan for zero pages. 0 or -errno.
 */
int compressor_store(struct compressor *z, const char *in, size_t n, emit_fn emit, emitv_fn emitv, void *ctx)
{
	unsigned char *frame = z->headers, *last;
	size_t h = FRAME_HEADER, total = 0, run = 0;
	int r = 0, iovs = 1;
	bool zero = false;

	if (n == 0)
		return 0;
	/* More than the iovecs hold: a frame per store_max. */
	if (n > z->store_max) {
		r = compressor_store(z, in, z->store_max, emit, emitv, ctx);
		return r < 0 ? r : compressor_store(z, in + z->store_max, n - z->store_max, emit, emitv, ctx);
	}
	if (z->open)
		r = compressor_feed(z, NULL, 0, FEED_END, emit, ctx);
	if (r < 0)
		return r;
	/* Magic, Frame_Header_Descriptor (Single_Segment_flag, a 4-byte Frame_Content_Size), that size. */
	memcpy(frame, (const unsigned char[]) { 0x28, 0xb5, 0x2f, 0xfd, 0xa0 }, 5);
	for (int i = 0; i < 4; i++)
		frame[5 + i] = (unsigned char)((uint32_t)n >> (8 * i));
	z->iov[0] = (struct iovec) { frame, FRAME_HEADER };
	for (size_t at = 0; at < n; at += PAGE_BYTES) {
		size_t len = n - at < PAGE_BYTES ? n - at : PAGE_BYTES;
		bool z_page = len == PAGE_BYTES && holes_zero(in + at, PAGE_BYTES);

		if (at > run && z_page != zero) {
			run_blocks(z, in, run, at, zero, &iovs, &h);
			run = at;
		}
		zero = z_page;
	}
	/* The last block says so. */
	last = run_blocks(z, in, run, n, zero, &iovs, &h);
	last[0] |= 1;
	for (int i = 0; i < iovs; i++)
		total += z->iov[i].iov_len;
	r = emitv(ctx, z->iov, iovs, total);
	if (r == 0)
		z->written += total;
	return r;
}

/*
 * Leaves the stream open, as a cut one must be, where its frames are all whole (stored ones): the header of one
 * more frame with no block, which every reader takes for a stream cut short (zstd -d: "truncated input"). Without
 * it a core cut while its chunks went out stored would read as a whole one. 0 or -errno.
 */
int compressor_leave_open(struct compressor *z, emit_fn emit, void *ctx)
{
	/* Magic, a Frame_Header_Descriptor of 0 (no size, no checksum: a Window_Descriptor follows), the least window. */
	static const char open_frame[] = { 0x28, (char)0xb5, 0x2f, (char)0xfd, 0x00, 0x00 };
	int r;

	if (z->open)
		return 0;
	r = emit(ctx, open_frame, sizeof(open_frame));
	if (r == 0) {
		z->written += sizeof(open_frame);
		z->open = true;
	}
	return r;
}

void compressor_free(struct compressor *z)
{
	ZSTD_freeCCtx(z->cctx);
	free(z->buf);
	free(z->iov);
	free(z->headers);
	*z = (struct compressor) { 0 };
}
