/*
 * corefile.c: a crash's core, as coresinkctl list, info, dump, debug, remove and retrace find it. An entry's
 * COREDUMP_FILENAME is only a hint, and an entry may be forged, old, or another host's: the file is looked for in the
 * core directory only, by its base name, opened beneath the directory's fd with no symlink followed (open_beneath():
 * what openat2's RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS promise, under any seccomp filter), and taken only when it is
 * a regular file of root's whose name says it is this crash's (name_parse(): the pid and the time of the entry) and
 * whose own record says so too: the id of the entry it was stored for (user.coresink.entry, xattr.c), which only
 * root could have set and which is 128 random bits no other entry can guess. A core stored before that record
 * existed is taken by its user.coredump.pid, .uid and .timestamp; on a file system without user xattrs the name is
 * all there is (docs/security.md). A path elsewhere is never opened: /etc/passwd in an entry is "passwd" in the core
 * directory, which is no core's name. A zstd core is decompressed as it is written out; a core in the entry
 * (Storage=journal) is read from COREDUMP=. Another machine's crash (a journal collected elsewhere) has no core here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <systemd/sd-journal.h>
#include <unistd.h>
#include <sodium.h>
#include <sys/mman.h>
#include <zstd.h>

#include "base.h"
#include "corefile.h"
#include "store.h"

static const char *const state_names[] = {
	[CORE_PRESENT] = "present", [CORE_TRUNCATED] = "truncated", [CORE_MISSING] = "missing",
	[CORE_INACCESSIBLE] = "inaccessible", [CORE_JOURNAL] = "journal", [CORE_NONE] = "none", [CORE_FORGED] = "error",
};

DEFINE_STRING_TABLE_LOOKUP(core_state, enum core_state, state_names, _CORE_STATE_MAX)

/* Whether the crash is this machine's (its entry's _MACHINE_ID): another's cores are not in this directory. */
static bool this_machine(const struct record *c)
{
	char id[64] = "";
	FILE *f = fopen("/etc/machine-id", "re");

	if (f) {
		if (!fgets(id, sizeof(id), f))
			id[0] = '\0';
		(void) fclose(f);
	}
	id[strcspn(id, "\n")] = '\0';
	return !c->machine_id[0] || !id[0] || strcmp(id, c->machine_id) == 0;
}

/*
 * The name of the crash's core in the directory: COREDUMP_FILENAME's last component, when it is a name
 * name_format() writes, for this very crash (its pid and second), on this machine. Whatever directory the entry
 * names, only this one is ever looked in. 0, or -ENOENT (none stored, or another machine's), -EINVAL (a name that
 * is not this crash's).
 */
static int core_name(const struct record *c, char *name, size_t len)
{
	const char *slash = strrchr(c->filename, '/');
	struct name_parts p;

	if (!c->filename[0] || !this_machine(c))
		return -ENOENT;
	slash = slash ? slash + 1 : c->filename;
	if (name_parse(slash, &p) < 0 || p.pid != c->pid || strlen(slash) >= len ||
	    (uint64_t)strtoull(c->timestamp, NULL, 10) / 1000000 != p.time)
		return -EINVAL;
	strcpy(name, slash);
	return 0;
}

/* Whether the attribute name of fd holds exactly want. */
static bool xattr_is(int fd, const char *name, const char *want)
{
	char v[64];
	ssize_t n = fgetxattr(fd, name, v, sizeof(v) - 1);

	if (n < 0)
		return false;
	v[n] = '\0';
	return strcmp(v, want) == 0;
}

/*
 * Whether the core open as fd is crash c's by the handler's own record on it: the entry id it was stored for, or,
 * for a core stored before ids were recorded, its pid, uid and time. 0, -EINVAL (another crash's, or no record), or
 * -errno (-EACCES: not this user's to read).
 */
static int record_says(int fd, const struct record *c)
{
	char record[XATTR_RECORD_MAX + 16], pid[16], uid[16];
	int r = xattr_entry(fd, record, sizeof(record));

	if (r == 0)
		return xattr_names_entry(record, c->entry_id) ? 0 : -EINVAL;
	/* A file system without user xattrs: the name, checked already, is all there is. */
	if (r == -EOPNOTSUPP)
		return 0;
	if (r != -ENODATA)
		return r;
	(void) snprintf(pid, sizeof(pid), "%d", (int)c->pid);
	(void) snprintf(uid, sizeof(uid), "%u", (unsigned)c->uid);
	return xattr_is(fd, "user.coredump.pid", pid) && xattr_is(fd, "user.coredump.uid", uid) &&
	       xattr_is(fd, "user.coredump.timestamp", c->timestamp) ? 0 : -EINVAL;
}

/*
 * Opens the crash's core for reading: its name into name (len bytes; NULL for none), compressed set for a zstd one
 * (NULL for none). The fd, or -ENOENT (none stored, or gone), -EINVAL (not the crash's: by its name or its own
 * record), -EACCES, -EPERM (not a regular file of root's).
 */
int corefile_open(int dirfd, const struct record *c, char *name, size_t len, bool *compressed)
{
	char here[NAME_MAX_LEN];
	struct stat st;
	int r = dirfd < 0 ? -ENOENT : core_name(c, here, sizeof(here));
	_cleanup_close_ int fd = -1;

	if (r < 0)
		return r;
	fd = open_beneath(dirfd, here);
	if (fd < 0)
		return fd;
	r = fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ? -EPERM : record_says(fd, c);
	if (r < 0)
		return r;
	/* Blocking reads from here on: O_NONBLOCK was only against a FIFO planted in its place. */
	(void) fcntl(fd, F_SETFL, 0);
	if (compressed) {
		struct name_parts p;

		*compressed = name_parse(here, &p) == 0 && p.compressed;
	}
	if (name)
		(void) snprintf(name, len, "%s", here);
	return TAKE_FD(fd);
}

/* The name of the crash's core in the directory, found and checked as corefile_open() does. 0 or -errno. */
int corefile_find(int dirfd, const struct record *c, char *name, size_t len)
{
	_cleanup_close_ int fd = corefile_open(dirfd, c, name, len, NULL);

	return fd < 0 ? fd : 0;
}

/* Whether the crash's entry says its core was cut (COREDUMP_TRUNCATED=1). */
static bool cut(const struct record *c)
{
	return strcmp(c->truncated, "1") == 0;
}

/* What list and info say of the crash's core, and its size on disk where it is there. */
enum core_state corefile_state(int dirfd, const struct record *c, uint64_t *size)
{
	char name[NAME_MAX_LEN];
	struct stat st;
	_cleanup_close_ int fd = -1;
	int r;

	*size = 0;
	if (c->journal_core)
		return CORE_JOURNAL;
	r = dirfd < 0 ? -ENOENT : core_name(c, name, sizeof(name));
	if (r == -ENOENT)
		return c->filename[0] ? CORE_MISSING : CORE_NONE;
	if (r < 0)
		return CORE_FORGED;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0)
		return CORE_MISSING;
	fd = corefile_open(dirfd, c, NULL, 0, NULL);
	if (fd == -EINVAL)
		return CORE_FORGED;
	*size = (uint64_t)st.st_size;
	if (fd >= 0)
		return cut(c) ? CORE_TRUNCATED : CORE_PRESENT;
	return fd == -EACCES || fd == -EPERM ? CORE_INACCESSIBLE : CORE_MISSING;
}

/* The stored file as read: as it is, or decrypted (an age file, with the identity it was encrypted to). */
struct source {
	int fd;
	bool age;
	struct age_reader a;
};

/* Opens the age file fd with the first of ids it was encrypted to. 0, -ENOKEY (no ids), -EKEYREJECTED, -errno. */
static int source_open(struct source *s, int fd, bool encrypted, const struct age_identities *ids)
{
	int r = -EKEYREJECTED;

	*s = (struct source) { .fd = fd, .age = encrypted };
	if (!encrypted)
		return 0;
	if (!ids || ids->n == 0)
		return -ENOKEY;
	for (unsigned i = 0; r == -EKEYREJECTED && i < ids->n; i++) {
		r = lseek(fd, 0, SEEK_SET) < 0 ? -errno : age_open(&s->a, fd, ids->keys[i]);
		if (r == -ENOKEY)
			r = -EKEYREJECTED;
	}
	return r;
}

/* The next bytes of the file (cap >= AGE_CHUNK), decrypted where it is an age file: their count, 0, or -errno. */
static ssize_t source_read(struct source *s, char *buf, size_t cap)
{
	return s->age ? age_read(&s->a, (unsigned char *)buf) : io_read_full(s->fd, buf, cap, NULL);
}

/*
 * Copies in to out, decompressing a zstd stream. 0, -EBADMSG for a damaged stream, or -errno. was_cut: the entry
 * says the core was cut (COREDUMP_TRUNCATED=1), whose stream the handler left open on purpose (engine.c): its end is
 * then where the core stops, as a raw cut core's is.
 */
static int copy_out(struct source *in, int out, bool compressed, bool was_cut)
{
	size_t in_cap = ZSTD_DStreamInSize() > AGE_CHUNK ? ZSTD_DStreamInSize() : AGE_CHUNK;
	size_t out_cap = ZSTD_DStreamOutSize(), left = 0;
	char *ib = malloc(in_cap), *ob = malloc(out_cap);
	ZSTD_DCtx *d = compressed ? ZSTD_createDCtx() : NULL;
	ssize_t n = 0;
	int r = ib && ob && (d || !compressed) ? 0 : -ENOMEM;

	while (r == 0 && (n = source_read(in, ib, in_cap)) > 0) {
		ZSTD_inBuffer zi = { ib, (size_t)n, 0 };

		if (!compressed) {
			r = io_write_full(out, ib, (size_t)n);
			continue;
		}
		while (r == 0 && zi.pos < zi.size) {
			ZSTD_outBuffer zo = { ob, out_cap, 0 };

			left = ZSTD_decompressStream(d, &zo, &zi);
			r = ZSTD_isError(left) ? -EBADMSG : io_write_full(out, ob, zo.pos);
		}
	}
	if (r == 0 && n < 0)
		r = (int)n;
	/* A frame cut short is a damaged file, not a core, unless the core was cut. */
	if (r == 0 && compressed && left != 0 && !was_cut)
		r = -EBADMSG;
	ZSTD_freeDCtx(d);
	if (ib)
		sodium_memzero(ib, in_cap);
	free(ib);
	free(ob);
	return r;
}

/* Whether the crash's core is an age file (Encrypt=), by its name as name_format() wrote it. */
bool corefile_encrypted(const struct record *c)
{
	const char *slash = strrchr(c->filename, '/');
	struct name_parts p;

	return name_parse(slash ? slash + 1 : c->filename, &p) == 0 && p.encrypted;
}

/*
 * Where a core is written out for gdb or a retrace: an unlinked file of dir, or a memfd for an encrypted core (its
 * plaintext is never given to a disk; say what memory can: a memfd may be swapped). The fd, or -errno.
 */
int corefile_scratch(const struct record *c, const char *dir)
{
	int fd = corefile_encrypted(c) ? memfd_create("coresink-core", MFD_CLOEXEC) :
		 open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	return fd < 0 ? -errno : fd;
}

/* The core held in the crash's entry (COREDUMP=), found again by its cursor. 0 or -errno. */
static int write_from_journal(const struct selection *s, const struct record *c, int out)
{
	sd_journal *j;
	const void *data;
	size_t n;
	int r = entries_open(s, (void **)&j);

	if (r < 0)
		return r;
	(void) sd_journal_set_data_threshold(j, 0);
	r = sd_journal_seek_cursor(j, c->cursor);
	if (r >= 0)
		r = sd_journal_next(j);
	if (r > 0)
		r = sd_journal_test_cursor(j, c->cursor) > 0 ? 0 : -ENOENT;
	else if (r == 0)
		r = -ENOENT;
	if (r == 0)
		r = sd_journal_get_data(j, "COREDUMP", &data, &n);
	if (r >= 0)
		r = n > 9 ? io_write_full(out, (const char *)data + 9, n - 9) : -ENODATA;
	sd_journal_close(j);
	return r;
}

/* Writes the crash's core, whole and decompressed, to out. 0 or -errno (as corefile_open(), or of the copy). */
int corefile_write(const struct selection *s, int dirfd, const struct record *c, int out)
{
	bool compressed = false;
	struct source src = { .fd = -1 };
	_cleanup_close_ int fd = -1;
	int r;

	if (c->journal_core)
		return write_from_journal(s, c, out);
	fd = corefile_open(dirfd, c, NULL, 0, &compressed);
	if (fd < 0)
		return fd;
	r = source_open(&src, fd, corefile_encrypted(c), s->identities);
	if (r == 0)
		r = copy_out(&src, out, compressed, cut(c));
	if (src.age)
		age_reader_free(&src.a);
	return r;
}

/* The core directory of the configuration, opened without creating it, root's; -1 where it cannot be. */
int corefile_directory(const struct config *c)
{
	struct stat st;
	_cleanup_close_ int fd = open(c->directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != 0))
		return -1;
	return TAKE_FD(fd);
}

/* What corefile_write()'s -errno r means of the crash's core, for dump, debug and retrace alike. */
const char *corefile_strerror(int r)
{
	return r == -ENOENT ? "not there (none stored, removed, or another machine's)" :
	       r == -EINVAL ? "the entry names a file that is not this crash's core (by its name or the core's own "
			      "record)" :
	       r == -EACCES ? "permission denied" :
	       r == -ENOKEY ? "it is encrypted (Encrypt=): --identity FILE reads it with an age identity it was "
			      "encrypted to" :
	       r == -EKEYREJECTED ? "it is encrypted to none of the identities given (--identity)" :
	       r == -EBADMSG ? "the file is damaged (or was changed): it does not decrypt or decompress whole" :
	       strerror(-r);
}

/* The cores of the directory (dirfd) that are not encrypted: with Encrypt=, those stored before it, in plaintext. */
unsigned corefile_plaintext(int dirfd)
{
	_cleanup_close_ int fd = dirfd < 0 ? -1 : fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	const struct dirent *e;
	struct name_parts p;
	unsigned n = 0;

	if (!dir)
		return 0;
	/* dir owns fd from here on. */
	(void) TAKE_FD(fd);
	rewinddir(dir);
	while ((e = readdir(dir)))
		n += name_parse(e->d_name, &p) == 0 && !p.encrypted;
	(void) closedir(dir);
	return n;
}
