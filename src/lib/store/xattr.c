/*
 * xattr.c: the core file describes itself without the journal: the essentials as user.coredump.* extended
 * attributes, the names systemd-coredump uses, and the id of its crash's entry (user.coresink.entry): the handler's
 * own record of whose core it is, which root's readers go by (coresinkctl's corefile.c), never the name alone.
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

/* Sets the attributes, and the crash's entry id where it has one; 0, or the first -errno (the others are still tried). */
int xattr_describe(int fd, const struct kargs *k, const char *exe, const char *entry)
{
	int r = 0, e;

#define TRY(x) do { e = (x); if (e < 0 && r == 0) r = e; } while (0)
	if (entry && entry[0])
		TRY(set(fd, XATTR_ENTRY, entry));
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

/* The entry id the core fd was stored for into buf (len bytes), "" where it has none. 0, or -errno (-ENODATA). */
int xattr_entry(int fd, char *buf, size_t len)
{
	ssize_t n = fgetxattr(fd, XATTR_ENTRY, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	return n < 0 ? -errno : n == 0 ? -ENODATA : 0;
}
