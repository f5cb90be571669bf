/*
 * xattr.c: the core file describes itself without the journal: the essentials as user.coredump.* extended
 * attributes, the names systemd-coredump uses, and the record of its crash's entry (user.coresink.entry): the
 * handler's own word of whose core it is, which root's readers go by (coresinkctl's corefile.c), never the name
 * alone. The record is the SHA-256 of the entry's id, not the id: the crashing user may read the core (and so this
 * record) before the entry is in the journal, and who knew the id then could send an entry with it first
 * (docs/security.md). An older coresink wrote the id itself; both are read (xattr_names_entry).
 * Only root can set them: the file is root's, in root's directory. Best effort: a file system without user xattrs
 * just has none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "base.h"
#include "xattr.h"

static int set(int fd, const char *name, const char *value)
{
	return fsetxattr(fd, name, value, strlen(value), 0) < 0 ? -errno : 0;
}

/* A string the crashing process chose, escaped as in its journal entry. */
static int set_text(int fd, const char *name, const char *value)
{
	char *e = escape_dup(value, ESCAPE_BACKSLASH);
	int r;

	if (!e)
		return -ENOMEM;
	r = set(fd, name, e);
	free(e);
	return r;
}

static int set_number(int fd, const char *name, uint64_t v)
{
	char buf[24];

	(void) snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return set(fd, name, buf);
}

/* The record of entry id entry into buf (XATTR_RECORD_MAX bytes): "sha256:" and the digest of the id. 0 or -errno. */
int xattr_record_of(const char *entry, char *buf, size_t len)
{
	char hex[DIGEST_HEX + 1];
	int r;

	if (!entry || strlen(entry) != XATTR_ID_LEN || strspn(entry, "0123456789abcdef") != XATTR_ID_LEN)
		return -EINVAL;
	r = digest_hex(entry, XATTR_ID_LEN, hex);
	if (r < 0)
		return r;
	return snprintf(buf, len, "%s%s", XATTR_RECORD_PREFIX, hex) < (int)len ? 0 : -ENOBUFS;
}

/*
 * Whether record (the attribute's value) names the entry of id entry: the digest of the id, as this coresink
 * writes it; or the id itself, as an older one did. Never an empty or malformed id.
 */
bool xattr_names_entry(const char *record, const char *entry)
{
	char want[XATTR_RECORD_MAX];

	if (strncmp(record, XATTR_RECORD_PREFIX, strlen(XATTR_RECORD_PREFIX)) != 0)
		return entry[0] && strlen(record) == XATTR_ID_LEN && strcmp(record, entry) == 0;
	return xattr_record_of(entry, want, sizeof(want)) == 0 && strcmp(record, want) == 0;
}

/*
 * Sets the attributes, and the record of the crash's entry where it has one; 0, or the first -errno (the others are
 * still tried).
 */
int xattr_describe(int fd, const struct kargs *k, const char *exe, const char *entry)
{
	char record[XATTR_RECORD_MAX];
	int r = 0, e;

#define TRY(x) do { e = (x); if (e < 0 && r == 0) r = e; } while (0)
	if (entry && entry[0])
		TRY(xattr_record_of(entry, record, sizeof(record)) < 0 ? -EINVAL : set(fd, XATTR_ENTRY, record));
	TRY(set_number(fd, "user.coredump.pid", (uint64_t)k->pid));
	TRY(set_number(fd, "user.coredump.uid", (uint64_t)k->uid));
	TRY(set_number(fd, "user.coredump.gid", (uint64_t)k->gid));
	TRY(set_number(fd, "user.coredump.signal", (uint64_t)k->signal));
	TRY(set_number(fd, "user.coredump.timestamp", k->time * 1000000ULL));
	TRY(set_number(fd, "user.coredump.rlimit", k->rlimit));
	TRY(set_text(fd, "user.coredump.hostname", k->hostname));
	TRY(set_text(fd, "user.coredump.comm", k->comm));
	if (exe[0])
		TRY(set_text(fd, "user.coredump.exe", exe));
#undef TRY
	return r;
}

/*
 * The record of the entry the core fd was stored for into buf (len bytes, XATTR_RECORD_MAX will do), "" where it
 * has none. 0, or -errno (-ENODATA).
 */
int xattr_entry(int fd, char *buf, size_t len)
{
	ssize_t n = fgetxattr(fd, XATTR_ENTRY, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	return n < 0 ? -errno : n == 0 ? -ENODATA : 0;
}
