/* sysroot.h: a root for gdb where the kept modules (KeepModules=) stand at the paths the crashed process had them. */
#ifndef CORESINKCTL_SYSROOT_H
#define CORESINKCTL_SYSROOT_H

#include <limits.h>

/* The links a tree may hold, all directories together: its directories may be the crashing user's. */
#define SYSROOT_LINKS_MAX 20000

struct sysroot {
	char dir[64];          /* the tree, for gdb's "set sysroot"; "" when no library was kept */
	char exe[PATH_MAX];    /* the kept executable, or "" */
	unsigned libraries;    /* kept libraries placed in the tree */
	unsigned over_bound;   /* kept libraries not placed: their directories hold more than the bound */
};

int sysroot_make(int dirfd, const char *directory, const char *core, const char *exe, struct sysroot *s);
void sysroot_remove(struct sysroot *s);

#endif
