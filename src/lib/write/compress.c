/*
 * compress.c: the zstd stage of the engine. Input goes in as it comes; each full output buffer is handed to the
 * engine's writer, so memory stays bounded: one context at a fast level (level 1 looks back 512 KiB; an 8 MiB window
 * took the handler's peak RSS from 5.5 to 15.5 MiB, measured on a 1 GiB core), one output buffer of
 * ZSTD_CStreamOutSize(). The frame carries its checksum, so a damaged file is told from a core.
 */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>

#include "compress.h"

/*
 * zstd's job with threads: its smallest. It took the handler's peak RSS from 17.8 to 9.4 MiB on a 192 MiB crash,
 * at the same speed (1 GiB core-like, compressed as it came, median of 5: 0.82x the time of one thread, against
 * 0.85x with its default of 2 MiB at level 1).
 */
#define COMPRESS_JOB (512 * 1024)

/*
 * A compressor at level; with workers > 0, zstd compresses in that many threads of its own, a job of COMPRESS_JOB
 * each (the caller's thread then only feeds and writes). 0 or -ENOMEM/-EINVAL.
 */
int compressor_init(struct compressor *z, int level, int workers)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();

	*z = (struct compressor) { 0 };
	if (!c)
		return -ENOMEM;
	z->cctx = c;
	z->cap = ZSTD_CStreamOutSize();
	z->buf = malloc(z->cap);
	if (!z->buf) {
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
	z->level = z->start = level;
	z->workers = workers;
	return 0;
}

/*
 * Moves the level a rung (compress.h: enum pace), for the jobs after the next flush. Only with threads: zstd takes a
 * new level within a frame only there. 0 (z->level says which), or -EOPNOTSUPP (one thread), -ERANGE (no rung that
 * way), -EIO.
 */
int compressor_pace(struct compressor *z, enum pace how)
{
	static const int rungs[] = { 1, -1, -4, -16, -64, COMPRESS_RAW_LEVEL };
	const size_t last = sizeof(rungs) / sizeof(rungs[0]) - 1;
	size_t i = 0;
	int next;

	if (z->workers <= 0)
		return -EOPNOTSUPP;
	/* The first rung below the level now. */
	while (i < last && rungs[i] >= z->level)
		i++;
	next = how == PACE_RAW ? rungs[last] : how == PACE_SLOWER ? rungs[i] : z->start;
	/* A rung up: the one above the level now, where that is still under the start. */
	for (size_t j = 0; how == PACE_FASTER && j <= last; j++)
		if (rungs[j] > z->level && rungs[j] < next)
			next = rungs[j];
	if (how == PACE_FASTER ? next <= z->level : next >= z->level)
		return -ERANGE;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, next)))
		return -EIO;
	z->level = next;
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
		if (ob.pos > 0) {
			r = emit(ctx, z->buf, ob.pos);
			if (r < 0)
				return r;
			z->written += ob.pos;
		}
	} while (how != FEED_MORE ? left > 0 : ib.pos < ib.size);
	return 0;
}

void compressor_free(struct compressor *z)
{
	ZSTD_freeCCtx(z->cctx);
	free(z->buf);
	*z = (struct compressor) { 0 };
}
