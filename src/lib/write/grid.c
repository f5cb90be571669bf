/*
 * grid.c: stored frames written so that every write ends on a line of STORE_GRID (engine.h). The page cache gives a
 * write's pages folios as large as the write's position and length allow (filemap's order for a write that begins
 * off a line is the alignment of its first page): frames that begin and end anywhere, 15 or 33 bytes of headers
 * beside each 256 KiB or MiB of data, left the core in folios of 4 KiB upwards, a MiB of it in a dozen, and the
 * disk's requests of 4 MiB in as many segments. On this host's virtual disk (no indirect descriptors, 128 slots) a
 * few such requests filled the queue: the stored path had 2 in flight where the raw path had 5, and the kernel put
 * one request a chunk back to be sent again (docs/benchmark.md, 2026-12-02). Ending every write on the grid, the
 * next begins on it, and a stored core lies in the page cache as a raw one written a buffer at a time.
 *
 * The price is a copy of what passes the last line, kept for the next write: less than a line's worth, as far as the
 * stream is off the grid (the frames' headers add 15 bytes to a 256 KiB frame, 33 to a MiB; zstd's output between
 * stored runs leaves it anywhere). So up to a whole 256 KiB frame in pipe mode (half of one on average, estimated)
 * and a quarter of the read-ahead ring's MiB; the handler's CPU for a GiB showed no difference (docs/benchmark.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "grid.h"

static int room_for(struct grid *g, int n)
{
	if (!g->carry && !(g->carry = malloc(STORE_GRID)))
		return -ENOMEM;
	if (g->cap >= n + 1)
		return 0;
	free(g->iov);
	g->iov = calloc((size_t)n + 1, sizeof(*g->iov));
	g->cap = g->iov ? n + 1 : 0;
	return g->iov ? 0 : -ENOMEM;
}

/* The last len bytes of the n pieces, after what the carry holds. */
static void keep_tail(struct grid *g, const struct iovec *iov, int n, size_t total, size_t len)
{
	size_t skip = total - len;

	for (int i = 0; i < n; i++) {
		size_t l = iov[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		memcpy(g->carry + g->len, (const char *)iov[i].iov_base + skip, l - skip);
		g->len += l - skip;
		skip = 0;
	}
}

/*
 * Appends total bytes of n pieces to the stream, whose written part ends at pos (the carry follows it): the carry and
 * the pieces as far as the last line they reach are written at once, the rest is kept. A frame that reaches no line
 * is kept whole: the carry never crosses a line, so carry and frame then end before the next one, within STORE_GRID
 * (written whole otherwise, off the grid: the guard of the carry's size). On an error nothing is kept: what follows
 * bytes that did not arrive is not to be written after them. 0 or -errno.
 */
int grid_writev(struct grid *g, uint64_t pos, const struct iovec *iov, int n, size_t total, grid_put put, void *ctx)
{
	uint64_t end = pos + g->len + total, cut = end / STORE_GRID * STORE_GRID;
	size_t want;
	int k = 0, r;

	r = room_for(g, n);
	if (r < 0)
		return r;
	if (cut < pos + g->len)
		cut = end - pos <= STORE_GRID ? pos : end;
	if (cut > pos) {
		want = (size_t)(cut - pos) - g->len;
		if (g->len > 0)
			g->iov[k++] = (struct iovec) { g->carry, g->len };
		for (int i = 0; i < n && want > 0; i++) {
			size_t l = iov[i].iov_len < want ? iov[i].iov_len : want;

			g->iov[k++] = (struct iovec) { iov[i].iov_base, l };
			want -= l;
		}
		r = put(ctx, pos, g->iov, k, (size_t)(cut - pos));
		g->len = 0;
		if (r < 0)
			return r;
	}
	keep_tail(g, iov, n, total, (size_t)(end - cut) - g->len);
	return 0;
}

/* Writes what the carry holds at pos, where the stream's written part ends. 0 or -errno (nothing kept then). */
int grid_flush(struct grid *g, uint64_t pos, grid_put put, void *ctx)
{
	struct iovec one = { g->carry, g->len };
	int r;

	if (g->len == 0)
		return 0;
	r = put(ctx, pos, &one, 1, g->len);
	g->len = 0;
	return r;
}

void grid_free(struct grid *g)
{
	free(g->carry);
	free(g->iov);
	*g = (struct grid) { 0 };
}
