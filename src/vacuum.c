/*
 * vacuum.c: the cores coresink stored in the directory, and the removal of the oldest. Only files named as
 * name_format() names them, regular and owned by root, count: nothing else in the directory is ever touched. A core
 * still being written is an O_TMPFILE without a name, so no vacuum can see it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "name.h"
#include "vacuum.h"

#define VACUUM_MAX 4096

struct core {
	char name[128];
	struct timespec mtime;
	uint64_t size;
};

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

static bool is_stamp(const char *s)
{
	return digits(s, 8) && s[8] == 'T' && digits(s + 9, 6) && s[15] == 'Z';
}

/* core.<comm>.<pid>.<YYYYmmddTHHMMSSZ>[.N], comm of the safe characters: what name_format() writes. */
bool vacuum_is_core(const char *name)
{
	size_t len = strlen(name), end = len, p;
	const char *dot = strrchr(name, '.');

	if (strncmp(name, "core.", 5) != 0)
		return false;
	/* The ".N" of a name clash. */
	if (dot && digits(dot + 1, len - (size_t)(dot + 1 - name)))
		end = (size_t)(dot - name);
	/* ".YYYYmmddTHHMMSSZ" */
	if (end < 5 + 17 || name[end - 17] != '.' || !is_stamp(name + end - 16))
		return false;
	end -= 17;
	/* ".PID", then a comm of at least one safe character. */
	for (p = end; p > 5 && name[p - 1] != '.'; p--)
		;
	if (p <= 6 || !digits(name + p, end - p))
		return false;
	return strspn(name + 5, NAME_SAFE_CHARS) >= p - 1 - 5;
}

static bool stat_core(int dirfd, const char *name, struct core *c)
{
	struct stat st;

	if (!vacuum_is_core(name) || strlen(name) >= sizeof(c->name))
		return false;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0)
		return false;
	strcpy(c->name, name);
	c->mtime = st.st_mtim;
	c->size = (uint64_t)st.st_size;
	return true;
}

/* Lists coresink's cores in the directory into *list (malloc'd); returns how many, or -errno. */
static int list_cores(int dirfd, struct core **list)
{
	int fd = dup(dirfd), n = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	*list = NULL;
	if (!d)
		return fd >= 0 ? (close(fd), -errno) : -errno;
	rewinddir(d);
	*list = malloc(VACUUM_MAX * sizeof(**list));
	while (*list && n < VACUUM_MAX && (e = readdir(d)))
		n += stat_core(dirfd, e->d_name, &(*list)[n]);
	closedir(d);
	return *list ? n : -ENOMEM;
}

/* Sums the sizes of coresink's cores in the directory. 0 or -errno. */
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

/* Removes the oldest cores until need bytes are freed or none is left. 0 or -errno; *freed, *removed tell. */
int vacuum_oldest(int dirfd, uint64_t need, uint64_t *freed, unsigned *removed)
{
	struct core *list;
	int n = list_cores(dirfd, &list);

	*freed = 0;
	*removed = 0;
	if (n > 0)
		qsort(list, (size_t)n, sizeof(*list), older);
	for (int i = 0; i < n && *freed < need; i++) {
		if (unlinkat(dirfd, list[i].name, 0) < 0)
			continue;
		*freed += list[i].size;
		(*removed)++;
	}
	free(list);
	return n < 0 ? n : 0;
}
