/* buildid.h: the .build-id trees beside the cores, walked (buildid.c). */
#ifndef CORESINK_BUILDID_H
#define CORESINK_BUILDID_H

#include <sys/stat.h>

/* One file of the tree: its directory (xx) open as at, xx, and its name there (the build-id's rest, a suffix). */
typedef void (*buildid_fn)(void *ctx, int at, const char *xx, const char *name, const struct stat *st);

void buildid_walk(int tree, buildid_fn fn, void *ctx);

#endif
