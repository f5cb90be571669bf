/* side.h: the room for a file beside the cores, asked of the same policy as a core's chunks. */
#ifndef CORESINK_SIDE_H
#define CORESINK_SIDE_H

#include <stdint.h>

#include "base.h"
#include "space.h"

/* A file system's space as the configuration sees it, in bytes: for what says it (coresinkctl status). */
struct side_space {
	uint64_t total, avail, keep_free, max_use;
};

int side_space(int fd, const struct size_spec *keep_free, const struct size_spec *max_use, struct side_space *s);
/* What is already spent on the file system, as the ledger says (session_spend, session_used). */
struct side_use {
	uint64_t used;     /* stored cores and captures in flight: against MaxUse */
	uint64_t pending;  /* of the captures, what statfs does not show yet: against free space */
};

uint64_t side_room(int fd, const struct size_spec *keep_free, const struct size_spec *max_use,
		   const struct side_use *u, enum limit *which);

#endif
