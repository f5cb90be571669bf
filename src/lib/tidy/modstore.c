/*
 * modstore.c: the modules kept beside the cores (KeepModules=): a crashed process's executable or library whose
 * file was gone or replaced at the crash, kept once per build-id where elfutils and debuginfod look for it,
 *   .modules/.build-id/xx/rest           the file (xx: the build-id's first byte in hex, rest: the others),
 * and, for each core that needs it, a hard link to it,
 *   .modules/.cores/CORE-NAME/BUILD-ID
 * so that the file's link count is its references: removing a core (vacuum.c) removes its links, and a module whose
 * last core is gone goes with it. Its blocks count in MaxUse once (vacuum_total()). A core removed by anything else
 * (systemd-tmpfiles, rm) leaves links whose core is gone: modstore_total() drops them. The directory is root's and
 * writable by root only (config.c refuses anything else), so no one else can plant a name here; still no link is
 * followed. Modules are 0640, their group the analysis user's (a retrace reads them), or 0600 without one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "modstore.h"
#include "store.h"

static bool is_build_id(const char *id)
{
	size_t n = strlen(id);

	return n >= 4 && n <= 128 && n % 2 == 0 && strspn(id, "0123456789abcdef") == n;
}

/* The directory name beneath at, never through a link: its fd, or -1 (also where at is -1). */
static int open_dir(int at, const char *name)
{
	return at < 0 ? -1 : openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* A core's name, as a directory of .cores: one component, not hidden. */
static bool core_name_ok(const char *core)
{
	return core[0] && core[0] != '.' && !strchr(core, '/');
}

/* The directory name beneath at, made (mode) where missing, never a link, root's. Its fd, or -errno. */
static int subdir(int at, const char *name, mode_t mode, gid_t gid)
{
	return ownedir_open(at, name, 0, gid, mode, false);
}

/* .modules/SUB beneath the core directory dirfd, made where missing. */
static int modules_sub(int dirfd, const char *sub, gid_t gid)
{
	_cleanup_close_ int top = subdir(dirfd, MODSTORE_DIR, gid ? 0750 : 0700, gid);

	return top < 0 ? top : subdir(top, sub, gid ? 0750 : 0700, gid);
}

/* Bytes [off, end) of in to the same offsets of out. 0 or -errno. */
static int copy_range(int out, int in, off_t off, off_t end)
{
	return lseek(out, off, SEEK_SET) < 0 ? -errno : io_sendfile_range(out, in, off, end);
}

/* Whether bytes [off, end) of a and b are the same. 1, 0, or -errno. */
static int same_range(int a, int b, off_t off, off_t end)
{
	size_t chunk = 1u << 20;
	char *x = malloc(chunk), *y = malloc(chunk);
	int r = x && y ? 1 : -ENOMEM;

	for (; r == 1 && off < end; off += (off_t)chunk) {
		size_t want = (uint64_t)(end - off) < chunk ? (size_t)(end - off) : chunk;
		ssize_t n = io_pread_full(a, x, want, off), m = io_pread_full(b, y, want, off);

		r = n < 0 ? (int)n : m < 0 ? (int)m : (size_t)n != want || (size_t)m != want ? -EIO :
		    memcmp(x, y, want) == 0;
	}
	free(x);
	free(y);
	return r;
}

/* The data extent of fd at or after off, up to size: [*data, *hole); *data is size where only a hole is left. */
static void extent(int fd, off_t off, off_t size, off_t *data, off_t *hole)
{
	*data = lseek(fd, off, SEEK_DATA);
	if (*data < 0 && errno == ENXIO) {
		*data = *hole = size;
		return;
	}
	/* A file system without SEEK_DATA: all of it is data. */
	if (*data < 0) {
		*data = off;
		*hole = size;
		return;
	}
	*hole = lseek(fd, *data, SEEK_HOLE);
	if (*hole < 0 || *hole > size)
		*hole = size;
}

/*
 * Whether the kept module (fd kept) holds in's size bytes. A build-id is what the file says of itself: anyone can
 * write another's (libc's) into a file of theirs, map it and crash, so a core is linked only to the very bytes it
 * ran. Only the kept file's data is read, and charged to *budget (-EFBIG past it): where it has a hole, in must have
 * one too (it was copied hole for hole from the same file), so hundreds of sparse impostors cost their data, not
 * their size. 1, 0, or -errno.
 */
static int same_bytes(int kept, int in, uint64_t size, uint64_t *budget)
{
	off_t off = 0, end = (off_t)size, data, hole, other, r = 1;

	while (r == 1 && off < end) {
		extent(kept, off, end, &data, &hole);
		/* A hole of the kept file [off, data): in has none of its data there. */
		if (data > off && (other = lseek(in, off, SEEK_DATA)) >= 0 && other < data)
			return 0;
		if ((uint64_t)(hole - data) > *budget)
			return -EFBIG;
		*budget -= (uint64_t)(hole - data);
		r = same_range(kept, in, data, hole);
		off = hole;
	}
	return (int)r;
}

/*
 * The kept file name beneath sub is in's bytes (size of them), checked within *budget: 0, -EEXIST for other bytes,
 * -EFBIG past the budget, or -errno.
 */
static int kept_is(int sub, const char *name, int in, uint64_t size, uint64_t *budget)
{
	_cleanup_close_ int fd = openat(sub, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int r;

	if (fd < 0)
		return -errno;
	r = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) || (uint64_t)st.st_size != size ? 0 :
	    same_bytes(fd, in, size, budget);
	return r < 0 ? r : r ? 0 : -EEXIST;
}

/*
 * The size bytes of in into a new unnamed file beneath at, its holes left holes: a sparse file the process mapped
 * cost it nothing, and costs this disk nothing either. Its fd, or -errno.
 */
static int copy_in(int at, int in, uint64_t size, gid_t gid)
{
	_cleanup_close_ int fd = openat(at, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	off_t off = 0, data, hole;
	int r = 0;

	if (fd < 0)
		return -errno;
	while (r == 0 && (uint64_t)off < size) {
		data = lseek(in, off, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break;
		/* A file system without SEEK_DATA: all of it is data. */
		hole = data < 0 ? (off_t)size : lseek(in, data, SEEK_HOLE);
		data = data < 0 ? off : data;
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		r = copy_range(fd, in, data, hole);
		off = hole;
	}
	if (r == 0 && (ftruncate(fd, (off_t)size) < 0 || (gid && (fchown(fd, 0, gid) < 0 || fchmod(fd, 0640) < 0)) ||
		       fsync(fd) < 0))
		r = -errno;
	return r < 0 ? r : TAKE_FD(fd);
}

/* Names the unnamed file fd name beneath at (AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does without). */
static int name_tmpfile(int fd, int at, const char *name)
{
	char proc[64];

	if (linkat(fd, "", at, name, AT_EMPTY_PATH) == 0)
		return 0;
	(void) snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, at, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
}


/*
 * A module's path as maps gave it, fit to be a debugger's: " (deleted)" cut, absolute, plain components (no ".",
 * "..", empty one), printable, no backslash (the kernel's escapes). Into out (len bytes); false when unfit.
 */
static bool plain_path(const char *path, char *out, size_t len)
{
	size_t n = path ? path_undeleted(path) : 0;

	if (n < 2 || n >= len || path[0] != '/' || path[n - 1] == '/')
		return false;
	memmove(out, path, n);
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] >= 0x7f || out[i] == '\\')
			return false;
	return !strstr(out, "//") && !strstr(out, "/./") && !strstr(out, "/../") &&
	       strcmp(out + n - 2, "/.") != 0 && (n < 3 || strcmp(out + n - 3, "/..") != 0);
}

/* Beside the core's link, where the module was (for a debugger): a symlink ID.path, only read, never followed. */
static void note_path(int refs, const char *id, const char *path)
{
	char plain[1024], name[160];

	if (!plain_path(path, plain, sizeof(plain)))
		return;
	(void) snprintf(name, sizeof(name), "%s" MODSTORE_PATH, id);
	(void) symlinkat(plain, refs, name);
}

/*
 * The module in, of build-id id, kept for the core named core in the core directory at: copied where the tree has it
 * not (its bytes added to *added), and linked for the core, with its path (or NULL). size: its length; *room: the
 * bytes the crash may still spend, on disk for a copy and read to check one kept already (kept_is()), less what
 * this spent. 0, -EFBIG past room, -EEXIST where other bytes are kept under its build-id, or -errno.
 */
int modstore_keep(int at, const char *core, const char *id, const char *path, int in, uint64_t size, uint64_t *room,
		  gid_t gid, uint64_t *added)
{
	char xx[3];
	_cleanup_close_ int tree = -1, refs = -1, sub = -1, fd = -1;
	struct stat st;
	int r;

	*added = 0;
	if (!is_build_id(id) || !core_name_ok(core))
		return -EINVAL;
	(void) snprintf(xx, sizeof(xx), "%.2s", id);
	tree = modules_sub(at, ".build-id", gid);
	r = tree < 0 ? tree : (sub = subdir(tree, xx, gid ? 0750 : 0700, gid)) < 0 ? sub : 0;
	if (r == 0 && fstatat(sub, id + 2, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		/* Not kept yet: copied whole, then named, so that no reader sees half of it. */
		if (size > *room)
			r = -EFBIG;
		else if ((fd = copy_in(sub, in, size, gid)) < 0)
			r = fd;
		else if ((r = name_tmpfile(fd, sub, id + 2)) == 0 && fstat(fd, &st) == 0)
			*added = (uint64_t)st.st_blocks * 512;
		else if (r == -EEXIST)
			r = kept_is(sub, id + 2, in, size, room);   /* another handler kept it meanwhile */
		*room = *room > *added ? *room - *added : 0;
	} else if (r == 0) {
		r = kept_is(sub, id + 2, in, size, room);
	}
	if (r == 0 && (refs = modules_sub(at, ".cores", gid)) < 0)
		r = refs;
	if (r == 0) {
		_cleanup_close_ int c = subdir(refs, core, 0700, 0);

		r = c < 0 ? c : linkat(sub, id + 2, c, id, 0) < 0 && errno != EEXIST ? -errno : 0;
		if (r == 0)
			note_path(c, id, path);
	}
	return r;
}

/* Drops one link of core's (refs: its directory), and the module itself where that was its last core. */
static void release_one(int tree, int refs, const char *id, uint64_t *freed)
{
	char xx[3];
	struct stat st;
	_cleanup_close_ int sub = -1;

	(void) unlinkat(refs, id, 0);
	if (!is_build_id(id))
		return;
	(void) snprintf(xx, sizeof(xx), "%.2s", id);
	sub = open_dir(tree, xx);
	if (sub < 0)
		return;
	if (fstatat(sub, id + 2, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	    unlinkat(sub, id + 2, 0) == 0)
		*freed += (uint64_t)st.st_blocks * 512;
}

/* .modules and its .cores beneath the core directory at (-1 each where missing), and the core's links, listed. */
static DIR *open_links(int at, const char *core, int *top, int *cores)
{
	_cleanup_close_ int refs = -1;
	DIR *d;

	*top = open_dir(at, MODSTORE_DIR);
	*cores = open_dir(*top, ".cores");
	refs = core_name_ok(core) ? open_dir(*cores, core) : (errno = EINVAL, -1);
	d = refs < 0 ? NULL : fdopendir(refs);
	/* d owns refs once made. */
	if (d)
		(void) TAKE_FD(refs);
	return d;
}

/* The links of the core named core (in the core directory at), removed, and the modules no other core needs. */
void modstore_release(int at, const char *core, uint64_t *freed)
{
	_cleanup_close_ int top = -1, cores = -1, tree = -1;
	struct dirent *e;
	DIR *d = open_links(at, core, &top, &cores);

	*freed = 0;
	tree = open_dir(top, ".build-id");
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			release_one(tree, dirfd(d), e->d_name, freed);
	if (d) {
		(void) closedir(d);
		(void) unlinkat(cores, core, AT_REMOVEDIR);
	}
}

static void add_blocks(void *ctx, int at, const char *xx, const char *name, const struct stat *st)
{
	(void) at, (void) xx, (void) name;
	*(uint64_t *)ctx += (uint64_t)st->st_blocks * 512;
}

/* Every module's blocks, once each. */
static uint64_t tree_bytes(int top)
{
	_cleanup_close_ int tree = open_dir(top, ".build-id");
	uint64_t bytes = 0;

	buildid_walk(tree, add_blocks, &bytes);
	return bytes;
}

uint64_t modstore_total(int at)
{
	_cleanup_close_ int top = open_dir(at, MODSTORE_DIR), cores = -1;
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *e;
	uint64_t freed;

	if (top < 0)
		return 0;
	cores = open_dir(top, ".cores");
	d = cores < 0 ? NULL : fdopendir(cores);
	/* d owns cores once made. */
	if (d)
		(void) TAKE_FD(cores);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && faccessat(at, e->d_name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			modstore_release(at, e->d_name, &freed);
	return tree_bytes(top);
}

/*
 * Each module kept for the core named core: kept(ctx, the module's path beneath the core directory, the path it
 * had in the process or NULL). Root's view: the tree is root's and the analysis group's. 0, or -errno.
 */
int modstore_each(int at, const char *core, void (*kept)(void *ctx, const char *file, const char *path), void *ctx)
{
	char file[300], link[160], path[1024];
	_cleanup_close_ int top = -1, cores = -1;
	struct dirent *e;
	ssize_t n;
	DIR *d = open_links(at, core, &top, &cores);

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!is_build_id(e->d_name))
			continue;
		(void) snprintf(link, sizeof(link), "%s" MODSTORE_PATH, e->d_name);
		n = readlinkat(dirfd(d), link, path, sizeof(path) - 1);
		if (n > 0)
			path[n] = '\0';
		(void) snprintf(file, sizeof(file), MODSTORE_DIR "/.build-id/%.2s/%s", e->d_name, e->d_name + 2);
		kept(ctx, file, n > 0 && plain_path(path, path, sizeof(path)) ? path : NULL);
	}
	(void) closedir(d);
	return 0;
}
