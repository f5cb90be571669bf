/*
 * mapped.c: the files with code the crashed process had mapped, opened from the mappings themselves while the kernel
 * holds the process (/proc/PID/map_files, checked against the pidfd as every /proc read is). Through them the
 * analysis reads the very file that ran, where its path no longer leads to it: deleted or replaced by an upgrade,
 * under a directory only root may enter, or on a mount of a container's namespace that dies with the process.
 *
 * Only opened here, never read: reading waits until the process is released. Each file once (device and inode),
 * at most MAPPED_MAX. Opening a file can run code that is not the kernel's: a FUSE daemon, which any user may
 * mount, answers opens and stats as it likes, or never, and would hold the crashed process and this handler. So a
 * file is opened only where the mount tables of its namespace or ours name its device with a type that is not
 * FUSE, and only a regular file is opened for reading (a mapped device is never opened). The links are followed as
 * O_PATH first, which asks no file system anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "mapped.h"
#include "procfs.h"

/* One file the maps name: its device and inode, the addresses of all its mappings, one mapping to open it by. */
struct cand {
	unsigned maj, min;
	uint64_t ino;
	uint64_t lo, hi;          /* the span of all its mappings */
	uint64_t at, at_end;      /* one mapping with code: its map_files name */
	const char *path;         /* its path as maps gives it, len bytes */
	size_t len;
	bool code;
};

struct line {
	uint64_t lo, hi, ino;
	unsigned maj, min;
	bool x;
	const char *path;
	size_t len;
};

static bool parse_line(const char *p, struct line *l)
{
	char perms[5];
	uint64_t off;
	int n = 0;

	if (sscanf(p, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n", &l->lo, &l->hi, perms, &off,
		   &l->maj, &l->min, &l->ino, &n) < 7 || n == 0)
		return false;
	l->x = perms[2] == 'x';
	l->path = p + n;
	l->len = strcspn(l->path, "\n");
	return l->ino != 0 && l->path[0] == '/';
}

/* The candidate for l's file, found (its lines come together, so the last is tried first) or added. */
static struct cand *cand_for(struct cand *c, size_t *n, const struct line *l)
{
	for (size_t i = *n; i-- > 0;)
		if (c[i].ino == l->ino && c[i].maj == l->maj && c[i].min == l->min)
			return &c[i];
	c[*n] = (struct cand) { l->maj, l->min, l->ino, l->lo, l->hi, 0, 0, l->path, l->len, false };
	return &c[(*n)++];
}

/* Every file maps names, with its span and a mapping with code. NULL when out of memory; *n files. */
static struct cand *candidates(const char *maps, size_t *n)
{
	size_t lines = 1;
	struct cand *c;

	for (const char *p = maps; (p = strchr(p, '\n')); p++)
		lines++;
	c = calloc(lines, sizeof(*c));
	*n = 0;
	for (const char *p = maps; c && p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		struct line l;
		struct cand *f;

		if (!parse_line(p, &l))
			continue;
		f = cand_for(c, n, &l);
		f->lo = l.lo < f->lo ? l.lo : f->lo;
		f->hi = l.hi > f->hi ? l.hi : f->hi;
		if (l.x && !f->code)
			f->code = true, f->at = l.lo, f->at_end = l.hi;
	}
	return c;
}

/* The type of the file system mountinfo names by device maj:min, into type; false when it names none. */
static bool fs_type(const char *mountinfo, unsigned maj, unsigned min, char *type)
{
	for (const char *p = mountinfo; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned a, b;
		const char *dash;

		if (sscanf(p, "%*u %*u %u:%u", &a, &b) != 2 || a != maj || b != min)
			continue;
		dash = strstr(p, " - ");
		return dash && sscanf(dash + 3, "%31s", type) == 1;
	}
	return false;
}

/* The mount tables, and the verdicts on the devices looked up in them so far (most files are on one or two). */
struct devices {
	char *theirs, *ours;
	struct {
		unsigned maj, min;
		bool safe;
	} seen[16];
	unsigned n;
};

/* Whether a file on device maj:min may be opened: a mount there is named, by one of the tables, and not FUSE. */
static bool safe_device(struct devices *d, unsigned maj, unsigned min)
{
	char type[32];
	bool safe;

	for (unsigned i = 0; i < d->n; i++)
		if (d->seen[i].maj == maj && d->seen[i].min == min)
			return d->seen[i].safe;
	safe = (fs_type(d->theirs, maj, min, type) || fs_type(d->ours, maj, min, type)) &&
	       strncmp(type, "fuse", 4) != 0;
	if (d->n < ELEMENTSOF(d->seen))
		d->seen[d->n].maj = maj, d->seen[d->n].min = min, d->seen[d->n++].safe = safe;
	return safe;
}

/* pathfd (O_PATH) opened for reading, if it is a regular file with inode ino. The fd, or -errno. */
static int reopen(int pathfd, uint64_t ino)
{
	struct stat st;
	char self[64];
	int fd;

	if (fstat(pathfd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_ino != ino)
		return -EBADF;
	(void) snprintf(self, sizeof(self), "/proc/self/fd/%d", pathfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/* Opens c's file through its mapping (or, by_exe, as the executable). The fd, or -errno (-EPERM: not allowed). */
static int open_cand(int dirfd, const struct cand *c, bool by_exe)
{
	char name[64];
	_cleanup_close_ int path = -1;

	(void) snprintf(name, sizeof(name), "map_files/%" PRIx64 "-%" PRIx64, c->at, c->at_end);
	path = openat(dirfd, by_exe ? "exe" : name, O_PATH | O_CLOEXEC);
	if (path < 0)
		return -errno;
	return reopen(path, c->ino);
}

/* Whether c is the executable, whose path /proc/PID/exe gives as maps does (" (deleted)" included). */
static bool is_exe(const struct cand *c, const char *exe)
{
	return exe[0] && strlen(exe) == c->len && memcmp(exe, c->path, c->len) == 0;
}

static void add(struct mapped *m, int fd, const struct cand *c)
{
	m->files[m->n++] = (struct mapped_file) { fd, c->lo, c->hi, strndup(c->path, c->len) };
}

/*
 * Without CAP_CHECKPOINT_RESTORE (or CAP_SYS_ADMIN) map_files is refused: the executable, through /proc/PID/exe,
 * is all that can be opened.
 */
static void open_exe_only(int dirfd, const struct cand *c, size_t n, const char *exe, struct devices *d,
			  struct mapped *m)
{
	m->why = "map_files is not permitted (CAP_CHECKPOINT_RESTORE): only the executable was opened";
	for (size_t i = 0; i < n; i++) {
		int fd;

		if (!c[i].code || !is_exe(&c[i], exe) || !safe_device(d, c[i].maj, c[i].min))
			continue;
		fd = open_cand(dirfd, &c[i], true);
		if (fd >= 0)
			add(m, fd, &c[i]);
		return;
	}
}

/* Opens each file with code the candidates name, into m, as far as the bound and the checks allow. */
static void open_all(int dirfd, const struct cand *c, size_t n, const char *exe, struct mapped *m)
{
	struct devices d = { .theirs = proc_read(dirfd, "mountinfo", NULL),
			     .ours = proc_read(AT_FDCWD, "/proc/self/mountinfo", NULL) };

	for (size_t i = 0; i < n; i++) {
		int fd;

		if (!c[i].code)
			continue;
		if (m->n == MAPPED_MAX) {
			m->over++;
			continue;
		}
		if (!safe_device(&d, c[i].maj, c[i].min)) {
			m->skipped++;
			continue;
		}
		fd = open_cand(dirfd, &c[i], false);
		if (fd == -EPERM && m->n == 0) {
			open_exe_only(dirfd, c, n, exe, &d, m);
			break;
		}
		if (fd >= 0)
			add(m, fd, &c[i]);
		else
			m->skipped++;
	}
	free(d.theirs);
	free(d.ours);
}

/*
 * Opens the files with code that maps (the process's /proc/PID/maps, read before) names, from the mappings of the
 * crashed process id names, exe being its /proc/PID/exe link. 0 with m filled in (maybe with none), or -errno with
 * nothing open. Free m with mapped_free().
 */
int mapped_open(const struct procinfo_id *id, const char *maps, const char *exe, struct mapped *m)
{
	_cleanup_close_ int dirfd = id->pid > 0 ? proc_open(id->pid) : -ESRCH;
	struct cand *c;
	size_t n;

	*m = (struct mapped) { 0 };
	if (dirfd < 0)
		return dirfd;
	c = maps ? candidates(maps, &n) : NULL;
	m->files = c ? calloc(n < MAPPED_MAX ? n + 1 : MAPPED_MAX, sizeof(*m->files)) : NULL;
	if (m->files)
		open_all(dirfd, c, n, exe, m);
	free(c);
	/* Opened from the crashed process itself, still there after: the pid was never another's in between. */
	if (procinfo_verify(dirfd, id) != NULL) {
		mapped_free(m);
		return -ESRCH;
	}
	return m->files ? 0 : -ENOMEM;
}

void mapped_free(struct mapped *m)
{
	/* files NULL has n 0 (said for clang's analyzer, which loses that through procinfo_verify()). */
	for (unsigned i = 0; m->files && i < m->n; i++) {
		fd_close(&m->files[i].fd);
		free(m->files[i].path);
	}
	free(m->files);
	*m = (struct mapped) { 0 };
}
