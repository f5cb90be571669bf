/*
 * xattr.c: the core file describes itself without the journal: the essentials as user.coredump.* extended
 * attributes, the names systemd-coredump uses. Best effort: a file system without user xattrs just has none.
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

/* Sets the attributes; 0, or the first -errno (the others are still tried). */
int xattr_describe(int fd, const struct kargs *k, const char *exe)
{
	int r = 0, e;

#define TRY(x) do { e = (x); if (e < 0 && r == 0) r = e; } while (0)
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
