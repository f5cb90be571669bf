/* sysroot.h: a root for gdb where the kept modules (KeepModules=) stand at the paths the crashed process had them. */
#ifndef CORESINKCTL_SYSROOT_H
#define CORESINKCTL_SYSROOT_H

#include <limits.h>

struct sysroot {
	char dir[64];          /* the tree, for gdb's "set sysroot"; "" when no library was kept */
	char exe[PATH_MAX];    /* the kept executable, or "" */
	unsigned libraries;    /* kept libraries placed in the tree */
};

int sysroot_make(int dirfd, const char *directory, const char *core, const char *exe, struct sysroot *s);
void sysroot_remove(struct sysroot *s);

#endif
