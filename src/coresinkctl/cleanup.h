/* cleanup.h: coresinkctl remove and vacuum: cores removed as the handler's own vacuum removes them, and journaled. */
#ifndef CORESINKCTL_CLEANUP_H
#define CORESINKCTL_CLEANUP_H

#include <stdbool.h>
#include <stdint.h>

#include "admin.h"

/* What vacuum removes: cores older than older_than (seconds; 0 any), of exe (NULL any), until max_use is met. */
struct vacuum_spec {
	uint64_t older_than;
	bool have_max_use;
	uint64_t max_use;
	const char *exe;
};

int cleanup_remove(int dirfd, const struct found *found, const char *why, bool dry_run);
int cleanup_vacuum(int dirfd, const struct vacuum_spec *v, const char *why, bool dry_run);

#endif
