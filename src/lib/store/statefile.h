/* statefile.h: the root-only state files beside the cores, the ledger and the signatures seen (statefile.c). */
#ifndef CORESINK_STATEFILE_H
#define CORESINK_STATEFILE_H

#include <stddef.h>

int statefile_open(int dirfd, const char *name);
int statefile_rewrite(int fd, const char *text, size_t len);

#endif
