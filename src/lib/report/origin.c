/*
 * origin.c: whether a crash entry in the journal is one coresink wrote. Any local user can send an entry with
 * coresink's MESSAGE_ID and any COREDUMP_*, CORESINK_* or SYSLOG_IDENTIFIER field, and any process can name itself
 * "coresink". What no client can set is what journald records of the sender itself: _TRANSPORT, and _UID, which
 * only root can give as another user's. So an entry is coresink's when it came through the native protocol with
 * coresink's identifier and
 *   - was sent as root (_UID=0): only root can, and root's identifier is its word (systemd-coredump's entries, with
 *     the same MESSAGE_ID, name themselves otherwise). It needs nothing journald reads from /proc, which a sender
 *     that has exited no longer has;
 *   - or was sent as the crashing user (_UID=COREDUMP_UID: how the handler files a user's crash in the user's own
 *     journal, with SCM_CREDENTIALS) and root vouched for it: the handler sends, as root, a seal that names the
 *     entry's id and the uid (CORESINK_SEAL_MESSAGE_ID, report.c). A user can send an entry as themselves, even from
 *     coresink's own binary in a user namespace of theirs, but no seal; and a seal vouches for one entry, the first
 *     with its id, so that a copy of their own sealed entry is not a second crash.
 * A reader who is not root cannot read root's seals: their own entries (sent as them, about them) are theirs to
 * trust, which costs nobody else anything: they see no one else's.
 * Journals collected by systemd-journal-remote keep the source host's fields and seals, and are judged by them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "origin.h"

static bool is(const char *field, const char *value)
{
	return field && strcmp(field, value) == 0;
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
	else if (!o->sealed && !o->own)
		no = "sent by a user, without root's seal";
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

static int by_id(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Reads every seal root sent in j into s, sorted, and leaves j without matches, at its head. Call it before adding
 * the matches of the entries to judge. 0 or -errno.
 */
int origin_seals_read(sd_journal *j, struct seals *s)
{
	size_t cap = 0;
	int r;

	*s = (struct seals) { 0 };
	r = sd_journal_add_match(j, "MESSAGE_ID=" CORESINK_SEAL_MESSAGE_ID, 0);
	if (r >= 0)
		r = sd_journal_add_match(j, "_UID=0", 0);
	if (r >= 0)
		r = sd_journal_seek_head(j);
	while (r >= 0 && (r = sd_journal_next(j)) > 0) {
		char id[64], uid[16], *both;

		if (!field(j, "CORESINK_SEAL", id, sizeof(id)) || !field(j, "COREDUMP_UID", uid, sizeof(uid)))
			continue;
		if (s->n == cap) {
			char **p = reallocarray(s->ids, cap ? cap * 2 : 64, sizeof(*p));

			if (!p) {
				r = -ENOMEM;
				break;
			}
			s->ids = p;
			cap = cap ? cap * 2 : 64;
		}
		if (asprintf(&both, "%s %s", id, uid) < 0) {
			r = -ENOMEM;
			break;
		}
		s->ids[s->n++] = both;
	}
	sd_journal_flush_matches(j);
	if (r >= 0)
		r = sd_journal_seek_head(j);
	if (r < 0) {
		origin_seals_free(s);
		return r;
	}
	if (s->n)
		qsort(s->ids, s->n, sizeof(*s->ids), by_id);
	s->used = calloc(s->n ? s->n : 1, sizeof(*s->used));
	if (!s->used) {
		origin_seals_free(s);
		return -ENOMEM;
	}
	return 0;
}

void origin_seals_free(struct seals *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->ids[i]);
	free(s->ids);
	free(s->used);
	*s = (struct seals) { 0 };
}

/* Whether s holds a seal of entry id for uid not used yet; it is used now. */
static bool sealed(struct seals *s, const char *id, const char *uid)
{
	char key[96], **hit;
	const char *k = key;

	if (!s || !s->n || !id || !uid || snprintf(key, sizeof(key), "%s %s", id, uid) >= (int)sizeof(key))
		return false;
	hit = bsearch(&k, s->ids, s->n, sizeof(*s->ids), by_id);
	if (!hit || s->used[hit - s->ids])
		return false;
	s->used[hit - s->ids] = true;
	return true;
}

/* origin_trusted() of the current entry of j, with the seals of its journal, for reader (a uid; 0 for root). */
bool origin_of_entry(sd_journal *j, struct seals *s, uid_t reader, const char **why)
{
	char me[16];

	char i[32], t[32], u[16], cu[16], id[64];
	struct origin o = {
		.ident = field(j, "SYSLOG_IDENTIFIER", i, sizeof(i)),
		.transport = field(j, "_TRANSPORT", t, sizeof(t)),
		.uid = field(j, "_UID", u, sizeof(u)),
		.crash_uid = field(j, "COREDUMP_UID", cu, sizeof(cu)),
	};

	(void) snprintf(me, sizeof(me), "%u", (unsigned)reader);
	o.own = reader != 0 && is(o.uid, me);
	o.sealed = o.uid && !is(o.uid, "0") && sealed(s, field(j, "CORESINK_ENTRY", id, sizeof(id)), o.uid);
	return origin_trusted(&o, why);
}
