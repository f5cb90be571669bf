/*
 * cleanup.h: what a scope owns, given back when it ends (GCC's and clang's cleanup attribute, as systemd's
 * _cleanup_): an fd, a malloc'd block, a FILE, a DIR. A value handed on leaves the scope with TAKE_FD / TAKE_PTR,
 * which leave -1 or NULL behind. errno survives the cleanup (skalibs' fd_close): an error path may return -errno
 * after its fds are closed.
 */
#ifndef CORESINK_CLEANUP_H
#define CORESINK_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_fd(const int *fd)
{
	if (*fd >= 0) {
		int e = errno;

		(void) close(*fd);
		errno = e;
	}
}

static inline void cleanup_free(void *p)
{
	free(*(void **)p);
}

static inline void cleanup_file(FILE **f)
{
	if (*f) {
		int e = errno;

		(void) fclose(*f);
		errno = e;
	}
}

static inline void cleanup_dir(DIR **d)
{
	if (*d) {
		int e = errno;

		(void) closedir(*d);
		errno = e;
	}
}

/* Closes fd now (if it is one) and leaves -1 in it; errno survives. */
static inline void fd_close(int *fd)
{
	cleanup_fd(fd);
	*fd = -1;
}

static inline int take_fd(int *fd)
{
	int r = *fd;

	*fd = -1;
	return r;
}

static inline void *take_ptr(void *p)
{
	void *r = *(void **)p;

	*(void **)p = NULL;
	return r;
}

/*
 * The directory name beneath at (AT_FDCWD: a path), opened with flags (O_RDONLY | O_DIRECTORY | O_CLOEXEC and
 * these: O_NOFOLLOW) as a DIR, which owns its fd. NULL with errno set.
 */
static inline DIR *opendir_at(int at, const char *name, int flags)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (fd >= 0 && !d)
		cleanup_fd(&fd);
	return d;
}

#define _cleanup_close_ __attribute__((cleanup(cleanup_fd)))
#define _cleanup_free_ __attribute__((cleanup(cleanup_free)))
#define _cleanup_fclose_ __attribute__((cleanup(cleanup_file)))
#define _cleanup_closedir_ __attribute__((cleanup(cleanup_dir)))
#define TAKE_FD(fd) take_fd(&(fd))
#define TAKE_PTR(p) take_ptr(&(p))

#endif
