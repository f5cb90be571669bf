/*
 * origin.c: whether a crash entry in the journal is one coresink wrote. Any local user can send an entry with
 * coresink's MESSAGE_ID and any COREDUMP_* or CORESINK_* field, and any process can name itself "coresink"
 * (PR_SET_NAME). What no client can set is what journald records of the sender itself: _TRANSPORT, _UID, _EXE,
 * _SYSTEMD_CGROUP, _AUDIT_LOGINUID. An entry is coresink's when it came through the native protocol with coresink's
 * SYSLOG_IDENTIFIER and either
 *   - was sent as root (_UID=0): only root can, and root's identifier is its word (systemd-coredump's entries, with
 *     the same MESSAGE_ID, name themselves otherwise). This needs nothing journald reads from /proc, which a sender
 *     that has exited no longer has;
 *   - or was sent as the crashing user (_UID=COREDUMP_UID, how the handler files an entry in the user's journal) by
 *     coresink's installed handler (_EXE one of its paths, _COMM coresink: the handler waits until journald wrote the
 *     entry, so both are there) from where no user's process can be: coresink.service's cgroup (socket mode), or
 *     the kernel's pipe helper, for which journald records no cgroup and which belongs to no login (no
 *     _AUDIT_LOGINUID, no _SYSTEMD_OWNER_UID). On a systemd host every user's process has a cgroup of its own, so
 *     the handler run by a user in a user namespace of theirs is refused. Without systemd no process has a cgroup
 *     field: a user's run from a login is refused by its login uid, but one of a daemon's that no login started
 *     cannot be told from the kernel's helper (docs/signatures.md).
 * Journals collected by systemd-journal-remote keep the source host's journald's fields, and are judged by them.
 */
#include <string.h>

#include "origin.h"

#define SERVICE_CGROUP "/coresink.service"

static bool is(const char *field, const char *value)
{
	return field && strcmp(field, value) == 0;
}

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/local/libexec"
#endif

/* Whether path is where coresink's handler is installed: this build's, Debian's package's, make install's default. */
static bool handler_path(const char *path)
{
	static const char *const paths[] = { LIBEXECDIR "/coresink", "/usr/libexec/coresink",
					     "/usr/local/libexec/coresink" };

	for (size_t i = 0; path && i < sizeof(paths) / sizeof(paths[0]); i++)
		if (strcmp(path, paths[i]) == 0)
			return true;
	return false;
}

/* A cgroup no user's process can enter: the root one (where journald records it), or coresink.service's. */
static bool handler_cgroup(const char *cg)
{
	const char *svc;

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

	if (!is(o->transport, "journal") || !is(o->ident, "coresink"))
		no = "not a coresink entry sent through journald's native protocol";
	else if (is(o->uid, "0"))
		no = NULL;
	else if (!o->uid || !is(o->crash_uid, o->uid))
		no = "sent by a user, about another user's crash";
	else if (!is(o->comm, "coresink") || !handler_path(o->exe))
		no = "sent by a user's program, not coresink's installed handler";
	else if (o->cgroup ? !handler_cgroup(o->cgroup) : o->login != NULL)
		no = "sent by a user's process, not the kernel's helper or coresink.service";
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
	char i[32], t[32], c[32], e[4096], u[16], g[4096], cu[16], l[16];
	struct origin o = {
		.ident = field(j, "SYSLOG_IDENTIFIER", i, sizeof(i)),
		.transport = field(j, "_TRANSPORT", t, sizeof(t)),
		.comm = field(j, "_COMM", c, sizeof(c)),
		.exe = field(j, "_EXE", e, sizeof(e)),
		.uid = field(j, "_UID", u, sizeof(u)),
		.cgroup = field(j, "_SYSTEMD_CGROUP", g, sizeof(g)),
		.crash_uid = field(j, "COREDUMP_UID", cu, sizeof(cu)),
		.login = field(j, "_AUDIT_LOGINUID", l, sizeof(l)),
	};

	if (!o.login)
		o.login = field(j, "_SYSTEMD_OWNER_UID", l, sizeof(l));

	return origin_trusted(&o, why);
}
