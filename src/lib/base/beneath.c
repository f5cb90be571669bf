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

/* The next component of *path (its length), *path moved past it and its slashes; 0 at the end. */
static size_t component(const char **path, char *out, size_t max)
{
	const char *p = *path;
	size_t n = strcspn(p, "/");

	if (n >= max)
		return (size_t)-1;
	memcpy(out, p, n);
	out[n] = '\0';
	p += n;
	while (*p == '/')
		p++;
	*path = p;
	return n;
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
	size_t n;

	if (!path || path[0] == '/')
		return -EXDEV;
	do {
		n = component(&path, name, sizeof(name));
		e = n == (size_t)-1 ? ENAMETOOLONG : n == 0 || strcmp(name, "..") == 0 || strcmp(name, ".") == 0 ? EXDEV : 0;
		fd = e ? -1 : openat(at, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | (*path ? O_DIRECTORY : O_NONBLOCK));
		e = e ? e : fd < 0 ? errno : 0;
		if (at != dirfd)
			(void) close(at);
		if (e)
			return -e;
		at = fd;
	} while (*path);
	e = fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EPERM : 0;
	if (e) {
		(void) close(fd);
		return -e;
	}
	return fd;
}
