/*
 * holes.c: a buffer written at a file's position with its runs of zero pages left as holes, as a sparse core is
 * stored: whole pages of zeros, aligned in the file, are skipped (lseek), the runs of data between them go to the
 * caller's writer (which may reserve their blocks first).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "holes.h"

/* Whether the n bytes at p (8-byte aligned, n >= 8) are all zero: the first word, then the rest against itself. */
bool holes_zero(const char *p, size_t n)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w == 0 && memcmp(p, p + sizeof(w), n - sizeof(w)) == 0;
}

/* The bytes of the n at p that lie in whole zero pages of p's page grid (a core's, which the engine's reads keep). */
uint64_t holes_zero_bytes(const char *p, size_t n)
{
	uint64_t z = 0;

	for (size_t at = 0; at + PAGE_BYTES <= n; at += PAGE_BYTES)
		if (holes_zero(p + at, PAGE_BYTES))
			z += PAGE_BYTES;
	return z;
}

/* Leaves a hole of n bytes at the file position: the position moves on, nothing is written or allocated. */
static int skip_hole(int out, size_t n, uint64_t *holes)
{
	*holes += n;
	return lseek(out, (off_t)n, SEEK_CUR) < 0 ? -errno : 0;
}

/*
 * The next run of buf from start: pages of one kind (a piece up to the file's next page boundary first, as only a
 * whole page may be a hole), then as many of the same kind as follow. Its end; *zero says its kind.
 */
static size_t next_run(off_t pos, const char *buf, size_t start, size_t n, bool *zero)
{
	size_t i = start + PAGE_BYTES - (size_t)((uint64_t)(pos + (off_t)start) % PAGE_BYTES);

	if (i > n)
		i = n;
	*zero = i - start == PAGE_BYTES && holes_zero(buf + start, PAGE_BYTES);
	while (i + PAGE_BYTES <= n && holes_zero(buf + i, PAGE_BYTES) == *zero)
		i += PAGE_BYTES;
	if (!*zero && i < n && n - i < PAGE_BYTES)
		i = n;
	return i;
}

/*
 * Writes n bytes of buf at out's position, leaving runs of zero pages (aligned in the file) of at least min_hole
 * bytes as holes (counted in *holes); shorter ones go out with the data around them. Each run of data goes to
 * write_data, at its position, in one call. 0 or -errno.
 */
int holes_write(int out, const char *buf, size_t n, size_t min_hole, holes_writer write_data, void *ctx,
		uint64_t *holes)
{
	off_t pos = lseek(out, 0, SEEK_CUR);   /* where buf starts in the file: pages are aligned there */
	size_t i = 0, data = SIZE_MAX;            /* where the data not yet written starts */
	int r = 0;

	if (pos < 0)
		return -errno;
	while (i < n && r == 0) {
		size_t start = i;
		bool zero;

		i = next_run(pos, buf, start, n, &zero);
		if (!zero || i - start < min_hole) {
			if (data == SIZE_MAX)
				data = start;
			continue;
		}
		if (data != SIZE_MAX) {
			r = write_data(ctx, pos + (off_t)data, buf + data, start - data);
			data = SIZE_MAX;
		}
		if (r == 0)
			r = skip_hole(out, i - start, holes);
	}
	if (r == 0 && data != SIZE_MAX) {
		r = write_data(ctx, pos + (off_t)data, buf + data, n - data);
	}
	return r;
}

