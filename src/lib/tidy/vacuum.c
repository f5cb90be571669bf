/*
 * vacuum.c: the cores coresink stored in the directory, and the removal of the oldest. Only files named as
 * name_format() names them, regular and owned by root, count: nothing else in the directory is ever touched. A core
 * still being written is an O_TMPFILE without a name, so no vacuum can see it; a core still being analysed is named
 * by its handler's record in the ledger (the caller's list of held inodes), and is not removed: its blocks would
 * stay in use until the analysis ends. Nothing a user can do marks a core as held: a user who may read a core can
 * open and lock it, but not write the root-only ledger; and a removed core is truncated first, so that a reader
 * holding it open cannot keep its blocks either.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base.h"
#include "sandbox.h"
#include "store.h"
#include "modstore.h"
#include "vacuum.h"

#define core vacuum_core

/* core.<comm>.<pid>.<YYYYmmddTHHMMSSZ>[.N][.zst][.age]: exactly what name_format() writes. */
bool vacuum_is_core(const char *name)
{
	struct name_parts p;

	return name_parse(name, &p) == 0;
}

static bool stat_core(int dirfd, const char *name, struct core *c)
{
	struct stat st;

	if (strlen(name) >= sizeof(c->o.name) || !vacuum_is_core(name))
		return false;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0)
		return false;
	strcpy(c->o.name, name);
	c->o.mtime = st.st_mtim;
	/* What it takes on disk: a sparse core's holes take nothing. */
	c->o.bytes = (uint64_t)st.st_blocks * 512;
	c->ino = st.st_ino;
	return true;
}

/* Appends c to the list, growing it as needed. 0 or -ENOMEM. */
static int append(struct core **list, size_t *n, size_t *cap, const struct core *c)
{
	if (*n == *cap) {
		size_t want = *cap ? *cap * 2 : 64;
		struct core *p = reallocarray(*list, want, sizeof(**list));

		if (!p)
			return -ENOMEM;
		*list = p;
		*cap = want;
	}
	(*list)[(*n)++] = *c;
	return 0;
}

/* Lists every one of coresink's cores in the directory into *list (malloc'd); returns how many, or -errno. */
static int list_cores(int dirfd, struct core **list)
{
	size_t n = 0, cap = 0;
	struct dirent *e;
	struct core c;
	DIR *d;
	_cleanup_close_ int fd = -1;
	int r = 0;

	*list = NULL;
	fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d)
		return -errno;
	/* d owns fd from here on. */
	(void) TAKE_FD(fd);
	rewinddir(d);
	errno = 0;
	while (r == 0 && (e = readdir(d)))
		if (stat_core(dirfd, e->d_name, &c))
			r = append(list, &n, &cap, &c);
	if (r == 0 && errno != 0)
		r = -errno;
	(void) closedir(d);
	if (r == 0 && n > INT32_MAX)
		r = -EOVERFLOW;
	if (r < 0) {
		free(*list);
		*list = NULL;
		return r;
	}
	return (int)n;
}

/*
 * Sums the bytes coresink's cores take on disk (allocated blocks, not sizes), and the modules kept for them
 * (KeepModules=, modstore.c). 0 or -errno.
 */
int vacuum_total(int dirfd, uint64_t *bytes)
{
	struct core *list;
	int n = list_cores(dirfd, &list);

	*bytes = n < 0 ? 0 : modstore_total(dirfd);
	for (int i = 0; i < n; i++)
		*bytes += list[i].o.bytes;
	free(list);
	return n < 0 ? n : 0;
}

/*
 * The name of the core of crash pid at time (what its name says: name_format()), into name (len bytes). 0, -ENOENT
 * when there is none, or -errno.
 */
int vacuum_name_of_crash(int dirfd, pid_t pid, uint64_t time, char *name, size_t len)
{
	struct core *list;
	struct name_parts p;
	int n = list_cores(dirfd, &list), r = n < 0 ? n : -ENOENT;

	for (int i = 0; i < n && r == -ENOENT; i++)
		if (name_parse(list[i].o.name, &p) == 0 && p.pid == pid && p.time == time && strlen(list[i].o.name) < len) {
			strcpy(name, list[i].o.name);
			r = 0;
		}
	free(list);
	return r;
}

static bool is_held(const struct core *c, const uint64_t *held, size_t n_held)
{
	for (size_t i = 0; i < n_held; i++)
		if (held[i] == (uint64_t)c->ino)
			return true;
	return false;
}

/*
 * Removes a core so that its blocks are free at once: truncated through an fd checked to be the listed file, then
 * unlinked. An unlink alone would leave them in use for as long as anyone holds the file open. The modules kept for
 * it that no other core needs go with it: what they took is added to *modules. 0 or -errno.
 */
static int remove_core(int dirfd, const struct core *c, bool *pending, uint64_t *modules)
{
	/* O_NONBLOCK: never wait for a lease or a lock of anyone's. */
	_cleanup_close_ int fd = openat(dirfd, c->o.name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	*pending = false;
	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == c->ino) {
			/* A core ExecUpload= has not sent yet: its loss is said in the entry of the crash that took its room. */
			*pending = fgetxattr(fd, UPLOAD_XATTR, NULL, 0) > 0;
			(void) ftruncate(fd, 0);
		}
		fd_close(&fd);
	}
	if (unlinkat(dirfd, c->o.name, 0) < 0)
		return -errno;
	modstore_release(dirfd, c->o.name, modules);
	return 0;
}

/* Lists coresink's cores in the directory into *list (malloc'd), oldest first: how many, or -errno. */
int vacuum_list(int dirfd, struct vacuum_core **list)
{
	int n = list_cores(dirfd, list);

	if (n > 0)
		oldest_sort(*list, (size_t)n, sizeof(**list));
	return n;
}

/*
 * Removes the core named name, as vacuum_oldest() removes one, unless it is one of the n_held inodes in held. 0,
 * with its bytes on disk in *freed and whether it was still to be uploaded in *unsent; -EBUSY for a held core;
 * -ENOENT where name is no core of coresink's; or -errno.
 */
int vacuum_remove(int dirfd, const char *name, const uint64_t *held, size_t n_held, uint64_t *freed, bool *unsent)
{
	struct core c;
	uint64_t modules = 0;
	int r;

	*freed = 0;
	*unsent = false;
	if (!stat_core(dirfd, name, &c))
		return -ENOENT;
	if (is_held(&c, held, n_held))
		return -EBUSY;
	r = remove_core(dirfd, &c, unsent, &modules);
	if (r == 0)
		*freed = c.o.bytes + modules;
	return r;
}

/* What vacuum_oldest() removes with: the held cores, and what the removal found. */
struct trim {
	int dirfd;
	const uint64_t *held;
	size_t n_held;
	unsigned unsent;
};

static int remove_oldest(void *ctx, void *entry, uint64_t *freed)
{
	struct trim *t = ctx;
	const struct core *c = entry;
	uint64_t modules = 0;
	bool pending;
	int r;

	if (is_held(c, t->held, t->n_held))
		return -EBUSY;
	r = remove_core(t->dirfd, c, &pending, &modules);
	if (r < 0)
		return r;
	*freed = c->o.bytes + modules;
	t->unsent += pending;
	return 0;
}

/* The uid a core was stored for (user.coredump.uid, xattr.c); -1 where it has none. */
static uid_t owner_of(int dirfd, const char *name)
{
	char path[64 + OLDEST_NAME_MAX], v[16];
	uint64_t uid;
	ssize_t n;

	(void) snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	n = lgetxattr(path, "user.coredump.uid", v, sizeof(v) - 1);
	if (n <= 0)
		return (uid_t)-1;
	v[n] = '\0';
	return parse_u64(v, &uid) == 0 && uid < (uid_t)-1 ? (uid_t)uid : (uid_t)-1;
}

/*
 * The cores of list (n, oldest first) a capture for share->uid may remove: every one while that user's cores take
 * at most share->bytes, else only that user's own, so that one user's crash loop makes room from its own cores
 * and never takes the others' (MaxUsePerUser=). Packed at the list's start: how many.
 */
static size_t mine_first(int dirfd, struct core *list, size_t n, const struct vacuum_share *share)
{
	uint64_t theirs = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		list[i].uid = owner_of(dirfd, list[i].o.name);
		theirs += list[i].uid == share->uid ? list[i].o.bytes : 0;
	}
	if (theirs <= share->bytes)
		return n;
	for (size_t i = 0; i < n; i++)
		if (list[i].uid == share->uid)
			list[k++] = list[i];
	return k;
}

/*
 * Removes the oldest cores until need bytes are freed or none is left, passing over the n_held inodes in held
 * (cores their handlers still analyse); with share, only those mine_first() leaves to its user. 0 or -errno;
 * *freed, *removed tell, and *unsent how many of the removed were still to be uploaded.
 */
int vacuum_oldest(int dirfd, uint64_t need, const uint64_t *held, size_t n_held, const struct vacuum_share *share,
		  uint64_t *freed, unsigned *removed, unsigned *unsent)
{
	struct core *list;
	struct trim t = { dirfd, held, n_held, 0 };
	int n = vacuum_list(dirfd, &list);

	*freed = 0;
	*removed = 0;
	/* (vacuum_list() gives a list whenever it counts a core: the analyzer cannot see it.) */
	if (n > 0 && list && share)
		n = (int)mine_first(dirfd, list, (size_t)n, share);
	if (n > 0)
		*freed = oldest_remove(list, (size_t)n, sizeof(*list), need, remove_oldest, &t, removed);
	*unsent = t.unsent;
	if (n >= 0)
		free(list);
	return n < 0 ? n : 0;
}
