/*
 * ownedir.c: a directory beneath one of root's (the core directory, or one of its own) made where missing with its
 * owner and mode, and opened without following a link: the one way the fetch step's cache and the kept modules'
 * trees are made. Only root writes where they live, so whatever is there under the name root made or left.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ownedir.h"

/*
 * The directory name beneath at, made (mode, uid:gid) where missing, never a link, its group and mode set as asked.
 * Its owner: set to uid where take (a cache handed to its user), else it must be uid already (-EPERM). Its fd, or
 * -errno.
 */
int ownedir_open(int at, const char *name, uid_t uid, gid_t gid, mode_t mode, bool take)
{
	struct stat st;
	int fd, r = 0;

	if (at < 0)
		return -EBADF;
	if (mkdirat(at, name, mode) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (st.st_uid != uid && !take)
		r = -EPERM;
	else if ((st.st_uid != uid || st.st_gid != gid) && fchown(fd, uid, gid) < 0)
		r = -errno;
	else if ((st.st_mode & 07777) != mode && fchmod(fd, mode) < 0)
		r = -errno;
	if (r < 0) {
		(void) close(fd);
		return r;
	}
	return fd;
}
