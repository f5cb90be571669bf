/* space.h: the storage policy, a pure function of numbers. */
#ifndef CORESINK_SPACE_H
#define CORESINK_SPACE_H

#include <stdint.h>

#include "base.h"

/* What stops a capture. */
enum limit {
	LIMIT_NONE,
	LIMIT_KEEP_FREE,   /* free space would fall below KeepFree */
	LIMIT_MAX_USE,     /* the stored cores would exceed MaxUse */
	LIMIT_MAX_CORE,    /* this core would exceed MaxCoreSize */
	LIMIT_RLIMIT,      /* this core would exceed the process's RLIMIT_CORE */
	LIMIT_CUT_SHORT,   /* not a limit of coresink's: the kernel stopped the dump (the process was killed) */
	LIMIT_SILENT,      /* socket mode: the dump said nothing for SocketSilenceSec, and was abandoned */
	_LIMIT_MAX
};

/* Everything the policy looks at, in bytes. */
struct space_in {
	uint64_t avail;    /* f_bavail * f_frsize: what the file system still gives */
	uint64_t total;    /* f_blocks * f_frsize */
	uint64_t block;    /* f_frsize: the allocation unit */
	uint64_t used;     /* stored cores plus other captures in flight, not counting this one */
	uint64_t pending;  /* of the others' in flight, what avail does not show yet (no preallocation) */
	uint64_t slack;    /* what the file system may take past what is written (ext4's preallocation), kept back */
	uint64_t written;  /* this capture so far: the core's size (MaxCoreSize, RLIMIT_CORE) */
	uint64_t held;     /* what of it is on disk: written less the holes of a sparse core (MaxUse) */
	uint64_t max_core; /* MaxCoreSize; UINT64_MAX for none */
	uint64_t rlimit;   /* RLIMIT_CORE of the crashed process; UINT64_MAX for unlimited */
	struct size_spec keep_free;
	struct size_spec max_use;
};

/* A size without a bound (MaxUse= where none applies). */
#define SPACE_UNBOUNDED ((struct size_spec) { UINT64_MAX, false, UINT64_MAX })

uint64_t space_resolve(const struct size_spec *spec, uint64_t total);
uint64_t space_room(uint64_t max_use, uint64_t used, uint64_t avail, uint64_t keep_free);
uint64_t space_trusted_avail(uint64_t avail, uint64_t baseline, uint64_t held);
uint64_t space_budget(const struct space_in *in, uint64_t want, enum limit *which);
const char *limit_to_string(enum limit l);
int limit_from_string(const char *s);

#endif
