/*
 * buildid.c: the .build-id trees beside the cores (the modules KeepModules= kept, the debug info the fetch step
 * fetched): .build-id/xx/rest, where elfutils and debuginfod look. One walk over such a tree, each regular file
 * given to the caller with its directory's fd; nothing hidden, no link followed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "buildid.h"

/* Calls fn for each regular file beneath the .build-id tree open as tree (xx/rest); tree stays open. */
void buildid_walk(int tree, buildid_fn fn, void *ctx)
{
	DIR *d = tree < 0 ? NULL : opendir_at(tree, ".", 0), *s;
	struct dirent *e, *f;
	struct stat st;

	while (d && (e = readdir(d))) {
		if (strlen(e->d_name) != 2 || e->d_name[0] == '.' || !(s = opendir_at(dirfd(d), e->d_name, O_NOFOLLOW)))
			continue;
		while ((f = readdir(s)))
			if (f->d_name[0] != '.' && fstatat(dirfd(s), f->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(st.st_mode))
				fn(ctx, dirfd(s), e->d_name, f->d_name, &st);
		(void) closedir(s);
	}
	if (d)
		(void) closedir(d);
}
