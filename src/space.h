/* space.h: the free-space policy, a pure function of numbers. */
#ifndef CORESINK_SPACE_H
#define CORESINK_SPACE_H

#include <stdint.h>

#include "parse.h"

/* What the file system reports, in bytes. */
struct space_fs {
	uint64_t avail;   /* f_bavail * f_frsize: what an unprivileged writer may still use */
	uint64_t total;   /* f_blocks * f_frsize */
	uint64_t block;   /* f_frsize: the allocation unit */
};

uint64_t space_resolve(const struct size_spec *spec, uint64_t total);
uint64_t space_budget(const struct space_fs *fs, const struct size_spec *keep_free, uint64_t want);

#endif
