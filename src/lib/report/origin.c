/*
 * origin.c: whether a crash entry in the journal is one coresink wrote. Any local user can send an entry with
 * coresink's MESSAGE_ID and any COREDUMP_* or CORESINK_* field; what no client can set is what journald records of
 * the sender itself: _TRANSPORT, _COMM, _EXE, _UID, _SYSTEMD_CGROUP. An entry is coresink's when coresink's
 * handler sent it through the native protocol (_TRANSPORT=journal, _COMM=coresink, an _EXE named coresink) and
 * either as root (_UID=0: no one else is), or as the crashing user from where no user's process can be: the root
 * cgroup, where the kernel starts the pipe handler, or coresink.service's (socket mode). A user's own coresink run
 * in a user namespace of theirs has their uid and their session's cgroup: refused. Where journald records no
 * cgroup (no systemd), an entry sent as a user cannot be told from such a forgery, and is refused too. Journals
 * collected by systemd-journal-remote keep the source host's journald's fields, and are judged by them.
 */
#include <string.h>

#include "origin.h"

#define SERVICE_CGROUP "/coresink.service"

static bool is(const char *field, const char *value)
{
	return field && strcmp(field, value) == 0;
}

/* Whether path's last component is "coresink". */
static bool named_coresink(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	return base && strcmp(base + 1, "coresink") == 0;
}

/* A cgroup no user's process can enter: the root one, or coresink.service's (and below it). */
static bool handler_cgroup(const char *cg)
{
	const char *svc;

	if (!cg)
		return false;
	if (strcmp(cg, "/") == 0)
		return true;
	svc = strstr(cg, SERVICE_CGROUP);
	return svc && (svc[strlen(SERVICE_CGROUP)] == '\0' || svc[strlen(SERVICE_CGROUP)] == '/') &&
	       strncmp(cg, "/system.slice/", 14) == 0;
}

/* Whether o is an entry coresink sent; where not, why (for the count of skipped entries). */
bool origin_trusted(const struct origin *o, const char **why)
{
	const char *no = NULL;

	if (!is(o->transport, "journal"))
		no = "not sent through journald's native protocol";
	else if (!is(o->comm, "coresink") || !named_coresink(o->exe))
		no = "not sent by coresink";
	else if (is(o->uid, "0"))
		no = NULL;
	else if (!o->uid || !is(o->crash_uid, o->uid))
		no = "sent by a user, about another user's crash";
	else if (!handler_cgroup(o->cgroup))
		no = "sent by a user from a cgroup of theirs";
	if (why)
		*why = no;
	return !no;
}

/* The current entry's field name as a NUL-terminated string in buf, or NULL when it has none. */
static const char *field(sd_journal *j, const char *name, char *buf, size_t len)
{
	const void *data;
	size_t n, k = strlen(name);

	if (sd_journal_get_data(j, name, &data, &n) < 0 || n <= k || n - k - 1 >= len)
		return NULL;
	memcpy(buf, (const char *)data + k + 1, n - k - 1);
	buf[n - k - 1] = '\0';
	return buf;
}

/* origin_trusted() of the current entry of j. */
bool origin_of_entry(sd_journal *j, const char **why)
{
	char t[32], c[32], e[4096], u[16], g[4096], cu[16];
	struct origin o = {
		.transport = field(j, "_TRANSPORT", t, sizeof(t)),
		.comm = field(j, "_COMM", c, sizeof(c)),
		.exe = field(j, "_EXE", e, sizeof(e)),
		.uid = field(j, "_UID", u, sizeof(u)),
		.cgroup = field(j, "_SYSTEMD_CGROUP", g, sizeof(g)),
		.crash_uid = field(j, "COREDUMP_UID", cu, sizeof(cu)),
	};

	return origin_trusted(&o, why);
}
