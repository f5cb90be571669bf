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

#include "buildid.h"

/* Calls fn for each regular file beneath the .build-id tree open as tree (xx/rest); tree stays open. */
void buildid_walk(int tree, buildid_fn fn, void *ctx)
{
	int dup_tree = tree < 0 ? -1 : fcntl(tree, F_DUPFD_CLOEXEC, 3), sub;
	DIR *d = dup_tree < 0 ? NULL : fdopendir(dup_tree), *s;
	struct dirent *e, *f;
	struct stat st;

	if (!d && dup_tree >= 0)
		(void) close(dup_tree);
	while (d && (e = readdir(d))) {
		if (strlen(e->d_name) != 2 || e->d_name[0] == '.' ||
		    (sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		s = fdopendir(sub);
		while (s && (f = readdir(s)))
			if (f->d_name[0] != '.' && fstatat(dirfd(s), f->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(st.st_mode))
				fn(ctx, dirfd(s), e->d_name, f->d_name, &st);
		if (s)
			(void) closedir(s);
		else
			(void) close(sub);
	}
	if (d)
		(void) closedir(d);
}
