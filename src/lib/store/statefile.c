/*
 * statefile.c: the state files the handlers share in the core directory (the ledger, session.c; the signatures
 * seen, sigstore.c): root's and 0600 in a directory only root may write, so that no user can forge them nor hold
 * their lock; each read and rewritten whole under flock() of the file itself, by its owner.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "statefile.h"

/*
 * Opens name in dirfd, made when missing, without following a symlink planted in its place nor stalling on a FIFO
 * (O_NONBLOCK): a regular file of root's, made 0600 where an older coresink or an admin left it otherwise. The fd,
 * or -errno (-EPERM for anything else).
 */
int statefile_open(int dirfd, const char *name)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_uid != 0)
		r = -EPERM;
	else if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600) < 0)
		r = -errno;
	return r < 0 ? r : TAKE_FD(fd);
}

/* Rewrites the file whole with the len bytes of text (under its lock): from the start, then cut. 0 or -errno. */
int statefile_rewrite(int fd, const char *text, size_t len)
{
	int r;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	r = io_write_full(fd, text, len);
	if (r < 0)
		return r;
	return ftruncate(fd, (off_t)len) < 0 ? -errno : 0;
}
