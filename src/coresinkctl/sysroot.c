/*
 * sysroot.c: `debug` of a crash whose modules were kept (KeepModules=). gdb opens a core's executable where it is
 * told and its libraries at the paths the process loaded them from, which lead to another build after an upgrade:
 * it would name the new build's functions at the old addresses. So gdb is given the kept executable, and a root of
 * its own (set sysroot): a tree of symlinks that is the real root everywhere but along the kept libraries' paths,
 * where it leads to the kept files. A real symlink is copied as it is, so that a relative one (merged /usr's
 * /lib -> usr/lib) still leads through this tree. Only root sees the kept tree; for anyone else there is nothing to
 * do. The paths are plain (modstore.c checked them): no "..", no empty component, nothing leaves the tree. The
 * directories along them may be the crashing user's, holding any number of entries: the whole tree is bounded
 * (SYSROOT_LINKS_MAX links), and a library whose directories would pass the bound is not placed, and counted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "tidy.h"
#include "sysroot.h"

struct build {
	struct sysroot *s;
	const char *directory;   /* the core directory's path */
	const char *exe;         /* the crash's executable, as the entry names it */
	int root;                /* the tree's top */
	unsigned left;           /* links the tree may still take */
};

/* The entries of d, counted up to more than max (the count stops there); d rewound. */
static unsigned count_entries(DIR *d, unsigned max)
{
	unsigned n = 0;
	struct dirent *e;

	while (n <= max && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	rewinddir(d);
	return n;
}

/*
 * Beneath at (the tree's twin of the real directory real), an entry for each of real's: a symlink to it, or a copy.
 * Within the links left to make (*left): a directory with more makes none, and is -E2BIG. 0 or -errno.
 */
static int fill(int at, const char *real, unsigned *left)
{
	DIR *d = opendir(real);
	struct dirent *e;
	char target[PATH_MAX], link[PATH_MAX];
	unsigned n_entries;

	if (!d)
		return -errno;
	n_entries = count_entries(d, *left);
	if (n_entries > *left) {
		(void) closedir(d);
		return -E2BIG;
	}
	*left -= n_entries;
	/* No more than were counted: the directory may have grown since. */
	while (n_entries > 0 && (e = readdir(d))) {
		ssize_t n;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n_entries--;
		(void) snprintf(target, sizeof(target), "%s/%s", strcmp(real, "/") ? real : "", e->d_name);
		n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (n > 0)
			link[n] = '\0';
		(void) symlinkat(n > 0 ? link : target, at, e->d_name);
	}
	(void) closedir(d);
	return 0;
}

/*
 * The tree's directory name beneath at, the twin of real: made, filled, where a symlink or nothing stood; within
 * *left links (-E2BIG past them: then the symlink stays, and nothing is placed beneath).
 */
static int descend(int at, const char *name, const char *real, unsigned *left)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;
	DIR *d;

	if (fd >= 0)
		return fd;
	/* Counted first, so that a directory past the bound leaves the tree as it was. */
	d = opendir(real);
	if (d) {
		unsigned n = count_entries(d, *left);

		(void) closedir(d);
		if (n > *left)
			return -E2BIG;
	}
	(void) unlinkat(at, name, 0);
	if (mkdirat(at, name, 0700) < 0)
		return -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* A directory gone from the real root stays empty but for what is placed. */
	r = fill(fd, real, left);
	if (r == -E2BIG) {
		(void) close(fd);
		return r;
	}
	return fd;
}

/* path (absolute, plain) in the tree leads to file, within *left links. 0 or -errno (-E2BIG past the bound). */
static int place(int root, const char *path, const char *file, unsigned *left)
{
	char real[PATH_MAX], *p, *slash;
	int at = dup(root), r = 0;

	if (at < 0 || strlen(path) >= sizeof(real))
		return at < 0 ? -errno : (close(at), -ENAMETOOLONG);
	strcpy(real, path);
	for (p = real + 1; r == 0 && (slash = strchr(p, '/')); p = slash + 1) {
		int next;

		*slash = '\0';
		next = descend(at, p, real, left);
		*slash = '/';
		(void) close(at);
		if (next < 0)
			return next;
		at = next;
	}
	(void) unlinkat(at, p, 0);
	if (symlinkat(file, at, p) < 0)
		r = -errno;
	(void) close(at);
	return r;
}

/* Whether path is the executable exe, which the entry names as the kernel does (" (deleted)" where it was). */
static bool is_exe(const char *path, const char *exe)
{
	size_t n = path_undeleted(exe);

	return strlen(path) == n && strncmp(path, exe, n) == 0;
}

static void kept(void *ctx, const char *file, const char *path)
{
	struct build *b = ctx;
	char abs[PATH_MAX];
	int r;

	if (!path || snprintf(abs, sizeof(abs), "%s/%s", b->directory, file) >= (int)sizeof(abs))
		return;
	if (is_exe(path, b->exe)) {
		(void) snprintf(b->s->exe, sizeof(b->s->exe), "%s", abs);
		return;
	}
	r = place(b->root, path, abs, &b->left);
	if (r == 0)
		b->s->libraries++;
	else if (r == -E2BIG)
		b->s->over_bound++;
}

int sysroot_make(int dirfd, const char *directory, const char *core, const char *exe, struct sysroot *s)
{
	struct build b = { s, directory, exe, -1, SYSROOT_LINKS_MAX };
	int r;

	*s = (struct sysroot) { .dir = "" };
	if (!directory || directory[0] != '/')
		return 0;
	(void) snprintf(s->dir, sizeof(s->dir), "/var/tmp/coresinkctl-root.XXXXXX");
	if (!mkdtemp(s->dir))
		return s->dir[0] = '\0', -errno;
	b.root = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	r = b.root < 0 ? -errno : fill(b.root, "/", &b.left);
	if (r == 0)
		r = modstore_each(dirfd, core, kept, &b);
	fd_close(&b.root);
	/* None kept, or not root's to see: gdb as always. */
	if (r == -ENOENT || r == -EACCES)
		r = 0;
	if (r < 0 || s->libraries == 0) {
		sysroot_remove(s);
		s->libraries = 0;
	}
	return r;
}

/* Removes what is beneath at (directories and symlinks this file made), never following a link. */
static void remove_beneath(int at)
{
	DIR *d = fdopendir(at);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			remove_beneath(sub);
		(void) unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	if (d)
		(void) closedir(d);
	else
		(void) close(at);
}

void sysroot_remove(struct sysroot *s)
{
	int fd;

	if (!s->dir[0])
		return;
	fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		remove_beneath(fd);
	(void) rmdir(s->dir);
	s->dir[0] = '\0';
}
