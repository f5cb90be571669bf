/*
 * vacuum.c: the cores coresink stored in the directory, and the removal of the oldest. Only files named as
 * name_format() names them, regular and owned by root, count: nothing else in the directory is ever touched. A core
 * still being written is an O_TMPFILE without a name, so no vacuum can see it; a core still being analysed is held
 * with a shared flock by its handler, and is not removed: its blocks would stay in use until the analysis ends.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "name.h"
#include "vacuum.h"

struct core {
	char name[NAME_MAX_LEN];
	struct timespec mtime;
	uint64_t size;
};

/* core.<comm>.<pid>.<YYYYmmddTHHMMSSZ>[.N][.zst]: exactly what name_format() writes. */
bool vacuum_is_core(const char *name)
{
	struct name_parts p;

	return name_parse(name, &p) == 0;
}

static bool stat_core(int dirfd, const char *name, struct core *c)
{
	struct stat st;

	if (strlen(name) >= sizeof(c->name) || !vacuum_is_core(name))
		return false;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0)
		return false;
	strcpy(c->name, name);
	c->mtime = st.st_mtim;
	/* What it takes on disk: a sparse core's holes take nothing. */
	c->size = (uint64_t)st.st_blocks * 512;
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
	int fd, r = 0;

	*list = NULL;
	fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		(void) close(fd);
		return r;
	}
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

/* Sums the bytes coresink's cores take on disk (allocated blocks, not sizes). 0 or -errno. */
int vacuum_total(int dirfd, uint64_t *bytes)
{
	struct core *list;
	int n = list_cores(dirfd, &list);

	*bytes = 0;
	for (int i = 0; i < n; i++)
		*bytes += list[i].size;
	free(list);
	return n < 0 ? n : 0;
}

static int older(const void *a, const void *b)
{
	const struct core *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Whether the core is being analysed: its handler holds a shared flock on it until then (capture.c). Removing it
 * would free nothing until the analysis ends, while the vacuum counted it as freed.
 */
static bool busy(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	(void) close(fd);
	return held;
}

/*
 * Removes the oldest cores until need bytes are freed or none is left, passing over those being analysed. 0 or
 * -errno; *freed, *removed tell.
 */
int vacuum_oldest(int dirfd, uint64_t need, uint64_t *freed, unsigned *removed)
{
	struct core *list;
	int n = list_cores(dirfd, &list);

	*freed = 0;
	*removed = 0;
	if (n > 0)
		qsort(list, (size_t)n, sizeof(*list), older);
	for (int i = 0; i < n && *freed < need; i++) {
		if (busy(dirfd, list[i].name) || unlinkat(dirfd, list[i].name, 0) < 0)
			continue;
		*freed += list[i].size;
		(*removed)++;
	}
	free(list);
	return n < 0 ? n : 0;
}
