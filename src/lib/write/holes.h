/* holes.h: a buffer written at a file's position with its runs of zero pages left as holes. */
#ifndef CORESINK_HOLES_H
#define CORESINK_HOLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Writes one run of data of n bytes at pos: 0 or -errno. */
typedef int (*holes_writer)(void *ctx, off_t pos, const char *buf, size_t n);

bool holes_zero(const char *p, size_t n);
uint64_t holes_zero_bytes(const char *p, size_t n);
int holes_write(int out, const char *buf, size_t n, size_t min_hole, holes_writer write_data, void *ctx,
		uint64_t *holes);

#endif
