/*
 * parts.c: which programs of a directory an admin asked to be run (NotifyDirectory=, CollectDirectory=): the files
 * named as run-parts(8) takes them ([A-Za-z0-9_-], so that a package's leftovers, *.dpkg-old, are passed over),
 * executable, regular, root's and writable by nobody else, in a directory of the same kind reached without a link;
 * anything else executable there is not run, and said. At most PARTS_MAX, in their names' order.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parts.h"
#include "store.h"

/* run-parts(8)'s names (Debian's, without --lsbsysinit): letters, digits, '_' and '-'. */
static bool run_parts_name(const char *s)
{
	return s[0] && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(s);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The programs of dir ("": none) to run, in p; what is there and not run, into d. 0 (also for no dir) or -errno. */
int parts_list(const char *dir, struct parts *p, struct diag *d)
{
	struct stat st;
	struct dirent *e;
	DIR *dp;
	int fd;

	p->n = 0;
	if (!dir[0])
		return 0;
	fd = store_root_dir(open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	if (fd == -ENOENT)
		return 0;
	if (fd == -EPERM)
		diag_add(d, "%s: not root's, or others may write it: nothing in it is run", dir);
	if (fd < 0)
		return fd;
	dp = fdopendir(fd);
	if (!dp) {
		int saved = errno;

		(void) close(fd);
		return -saved;
	}
	while ((e = readdir(dp)) && p->n < PARTS_MAX) {
		if (!run_parts_name(e->d_name) || fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
			continue;
		if (!store_root_only(&st)) {
			diag_add(d, "%s/%s: not root's, or others may write it: not run", dir, e->d_name);
			continue;
		}
		(void) snprintf(p->name[p->n++], sizeof(p->name[0]), "%s", e->d_name);
	}
	(void) closedir(dp);
	qsort(p->name, p->n, sizeof(p->name[0]), by_name);
	return 0;
}
