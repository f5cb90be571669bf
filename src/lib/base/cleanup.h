/*
 * cleanup.h: what a scope owns, given back when it ends (GCC's and clang's cleanup attribute, as systemd's
 * _cleanup_): an fd, a FILE, a DIR. An fd handed on leaves the scope with TAKE_FD, which leaves -1 behind. errno
 * survives the cleanup (skalibs' fd_close): an error path may return -errno after its fds are closed. Memory is
 * freed by hand: clang's analyzer (make analyze) does not follow a cleanup's free() and would see a leak in each.
 */
#ifndef CORESINK_CLEANUP_H
#define CORESINK_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static inline void cleanup_fd(const int *fd)
{
	if (*fd >= 0) {
		int e = errno;

		(void) close(*fd);
		errno = e;
	}
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
#define _cleanup_fclose_ __attribute__((cleanup(cleanup_file)))
#define _cleanup_closedir_ __attribute__((cleanup(cleanup_dir)))
#define TAKE_FD(fd) take_fd(&(fd))

#endif
