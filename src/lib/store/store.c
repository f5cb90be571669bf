/*
 * store.c: where cores are written and how they are published. The file is written where nobody can see it (an
 * O_TMPFILE, or a hidden O_EXCL name where the file system has no O_TMPFILE) and linked under its final name only
 * when complete. Everything is relative to a directory fd opened without following a symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "corename.h"
#include "store.h"

#define NAME_ATTEMPTS 100

/* Whether st is root's and nobody else may write it: where root may write, or run what it finds. */
bool store_root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* fd, a directory opened without following a link, kept where it is root's alone (store_root_only); else closed. */
int store_root_dir(int fd)
{
	struct stat st;

	if (fd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	if (fstat(fd, &st) < 0 || !store_root_only(&st)) {
		fd_close(&fd);
		return -EPERM;
	}
	return fd;
}

/*
 * Opens the core directory, creating it (0755, root) when missing. Refuses a symlink, a non-directory, and a
 * directory that someone other than root could write to. Returns the fd or -errno.
 */
int store_open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			(void) fchmod(fd, 0755);
	}
	return store_root_dir(fd);
}

static int create_hidden(struct store_file *f, mode_t mode)
{
	for (int i = 0; i < NAME_ATTEMPTS; i++) {
		(void) snprintf(f->tmpname, sizeof(f->tmpname), ".coresink.%d.%d", (int)getpid(), i);
		f->fd = openat(f->dirfd, f->tmpname, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (f->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	f->tmpname[0] = '\0';
	return -errno;
}

/* Creates the invisible file that receives the core, owned by root with mode. 0 or -errno. */
int store_create(int dirfd, mode_t mode, struct store_file *f)
{
	int r;

	*f = (struct store_file) { .dirfd = dirfd, .fd = -1 };
	f->fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (f->fd < 0) {
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return -errno;
		r = create_hidden(f, mode);
		if (r < 0)
			return r;
	}
	/* The umask and a setgid directory must not change what the configuration asked for. */
	if (fchown(f->fd, 0, 0) < 0 || fchmod(f->fd, mode) < 0) {
		r = -errno;
		store_discard(f);
		return r;
	}
	return 0;
}

static int link_final(struct store_file *f, const char *name)
{
	char proc[64];

	if (f->tmpname[0])
		return linkat(f->dirfd, f->tmpname, f->dirfd, name, 0) < 0 ? -errno : 0;
	if (linkat(f->fd, "", f->dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOENT && errno != EPERM)
		return -errno;
	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc path does the same without it. */
	(void) snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	return linkat(AT_FDCWD, proc, f->dirfd, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
}

/*
 * Gives the complete file its final name (never replacing an existing file: a clash gets a ".N" suffix), then
 * closes it, and syncs the directory: the entry that names the file must not outlive it in a power cut
 * (systemd-coredump's LINK_TMPFILE_SYNC). The file's data was synced by the engine. The name, ".zst" at its end for
 * a compressed file, is returned in name.
 * 0 or -errno; on error the file is discarded.
 */
int store_publish(struct store_file *f, const char *comm, pid_t pid, uint64_t time, bool compressed, bool encrypted,
		  char *name, size_t len)
{
	int r = -EEXIST;

	for (unsigned i = 0; i < NAME_ATTEMPTS && r == -EEXIST; i++) {
		r = name_format(name, len, comm, pid, time, i, compressed, encrypted);
		if (r == 0)
			r = link_final(f, name);
	}
	/* Failing, it leaves the file published, as the entry will say; only a power cut could still take it. */
	if (r == 0)
		(void) fsync(f->dirfd);
#ifdef CORESINK_TEST_PLANT_LINK_BEFORE_SYNC
	/* The planted bug (make check-powercut's test build): the data synced only after its name. */
	if (r == 0)
		(void) fdatasync(f->fd);
#endif
	store_discard(f);
	return r;
}

/* Closes the file and removes its hidden name, if any: nothing of an unpublished file remains. */
void store_discard(struct store_file *f)
{
	int saved = errno;

	if (f->tmpname[0])
		(void) unlinkat(f->dirfd, f->tmpname, 0);
	f->tmpname[0] = '\0';
	fd_close(&f->fd);
	errno = saved;
}
