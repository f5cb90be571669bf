/* grid.h: a stream appended in writes that end on a grid (STORE_GRID), the bytes past it kept for the next. */
#ifndef CORESINK_GRID_H
#define CORESINK_GRID_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Writes len bytes of n pieces at the file's position, pos: 0 or -errno. */
typedef int (*grid_put)(void *ctx, uint64_t pos, struct iovec *iov, int n, size_t len);

struct grid {
	char *carry;        /* the bytes past the grid's last line, not yet written (STORE_GRID at most) */
	size_t len;
	struct iovec *iov;  /* one write's pieces: the carry, then the caller's */
	int cap;
};

int grid_writev(struct grid *g, uint64_t pos, const struct iovec *iov, int n, size_t total, grid_put put, void *ctx);
int grid_flush(struct grid *g, uint64_t pos, grid_put put, void *ctx);
void grid_free(struct grid *g);

#endif
