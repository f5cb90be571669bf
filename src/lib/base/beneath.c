/*
 * beneath.c: a file opened for reading by a relative path beneath a directory fd, with no symbolic link followed
 * at any step, no "..", and nothing but a regular file at the end: what RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
 * asks of openat2(2), done one component at a time with openat(2) and O_NOFOLLOW instead. openat2 cannot be
 * relied on: systemd's RestrictSUIDSGID= (coresink.service sets it) refuses it to the whole service, since a
 * seccomp filter cannot see the mode inside its struct, and so do the filters of container runtimes that predate
 * it. Under the unit, the fetch step's files were then never opened, and what it fetched went unused.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"

/*
 * The next component of *path into out (max bytes), *path moved past it and its slashes: 0, or an errno: EXDEV
 * for "", "." or ".." (no way up or out), ENAMETOOLONG.
 */
static int component(const char **path, char *out, size_t max)
{
	const char *p = *path;
	size_t n = strcspn(p, "/");

	if (n >= max)
		return ENAMETOOLONG;
	memcpy(out, p, n);
	out[n] = '\0';
	for (p += n; *p == '/'; p++)
		;
	*path = p;
	return n == 0 || strcmp(out, ".") == 0 || strcmp(out, "..") == 0 ? EXDEV : 0;
}

/*
 * Opens path (relative: "a/b/c") beneath dirfd read-only, each directory on the way with O_DIRECTORY and every
 * step with O_NOFOLLOW: a link anywhere, "..", an absolute path or a last step that is not a regular file is
 * refused. The fd, or -errno (-ELOOP for a link, -EXDEV for a way out, -EPERM for what is not a regular file).
 */
int open_beneath(int dirfd, const char *path)
{
	char name[256];
	int at = dirfd, fd, e;
	struct stat st;

	if (!path || path[0] == '/')
		return -EXDEV;
	do {
		fd = -1;
		e = component(&path, name, sizeof(name));
		/* Directories on the way; the last step without blocking, a FIFO planted there included. */
		if (!e && (fd = openat(at, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
						 (*path ? O_DIRECTORY : O_NONBLOCK))) < 0)
			e = errno;
		if (at != dirfd)
			(void) close(at);
		at = fd;
	} while (!e && *path);
	if (!e)
		e = fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EPERM : 0;
	if (e && fd >= 0)
		(void) close(fd);
	return e ? -e : fd;
}
