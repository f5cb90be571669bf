/*
 * origin.c: whether a crash entry in the journal is one coresink wrote: the trust rule (docs/security.md), in one
 * place, for every reader (coresinkctl's verbs, coresink --summary, a retrace), with the seal it judges by written
 * beside it (origin_seal: the format and its reader side by side). Any local user can send an entry
 * with coresink's MESSAGE_ID and any COREDUMP_*, CORESINK_* or SYSLOG_IDENTIFIER field, and any process can name
 * itself "coresink". What no client can set is what journald records of the sender itself: _TRANSPORT, and _UID,
 * which only root can give as another user's. So an entry is coresink's when it came through the native protocol
 * with coresink's identifier and
 *   - was sent as root (_UID=0): only root can, and root's identifier is its word (systemd-coredump's entries, with
 *     the same MESSAGE_ID, name themselves otherwise). It needs nothing journald reads from /proc, which a sender
 *     that has exited no longer has;
 *   - or was sent as the crashing user (_UID=COREDUMP_UID: how the handler files a user's crash in the user's own
 *     journal, with SCM_CREDENTIALS) and root vouched for this very entry: the handler sends, as root, a seal that
 *     names the entry's id and uid and repeats every field a reader shows or acts on (origin_sealed_fields). The
 *     entry is taken only where each of those fields is the seal's, byte for byte, and it is the first crash entry
 *     with its id in the journal, whatever the reader's matches: a user who copies their own sealed entry and
 *     changes its COMM, EXE or FILENAME has made a forgery, and an unchanged copy is not a second crash.
 * A reader who is not root cannot read root's seals: their own entries (sent as them, about them) are theirs to
 * trust, which costs nobody else anything: they see no one else's.
 * Journals of other hosts (-D, --file: what systemd-journal-remote collected) are judged by the same rule, with the
 * fields the sending host recorded: an entry there is that host's word, never this machine's. Nothing a reader does
 * with an entry trusts it further than that: its core is taken only where the core's own record says it is that
 * crash's (corefile.c), and its strings reach no command line as options (coresinkctl debug).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "origin.h"
#include "report.h"

/*
 * The fields a seal repeats: every field coresinkctl (list, info, dump, debug, remove, retrace, status) and
 * coresink --summary read of a crash entry, or act on.
 */
const char *const origin_sealed_fields[] = {
	"MESSAGE", "COREDUMP_PID", "COREDUMP_UID", "COREDUMP_GID", "COREDUMP_SIGNAL", "COREDUMP_TIMESTAMP",
	"COREDUMP_EXE", "COREDUMP_COMM", "COREDUMP_CMDLINE", "COREDUMP_CGROUP", "COREDUMP_UNIT", "COREDUMP_USER_UNIT",
	"COREDUMP_SLICE", "COREDUMP_OWNER_UID", "COREDUMP_HOSTNAME", "COREDUMP_FILENAME", "COREDUMP_TRUNCATED",
	"COREDUMP_SIZE", "COREDUMP_PACKAGE_NAME", "COREDUMP_PACKAGE_VERSION", "CORESINK_RESULT", "CORESINK_SIZE",
	"CORESINK_LIMIT", "CORESINK_SIGNATURE", "CORESINK_SIGNATURE_TEXT", "CORESINK_SIGNATURE_FROM",
	"CORESINK_SIGNATURE_KEYS", "CORESINK_STORAGE", "CORESINK_CONTAINER_RUNTIME", "CORESINK_CONTAINER_ID",
	"CORESINK_CONTAINER_NAME", "CORESINK_CONTAINER_IMAGE", "CORESINK_POD_NAME", "CORESINK_POD_NAMESPACE",
	"CORESINK_POD_LABELS",
	/*
	 * Added after version 3 without a new one: a field is in a seal's form only where present, and a seal of
	 * before it repeats none, so an entry given one afterwards no longer matches its seal.
	 */
	"CORESINK_CONTAINER_LABELS",
};
const size_t origin_n_sealed_fields = sizeof(origin_sealed_fields) / sizeof(origin_sealed_fields[0]);

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
		no = "sent by a user, without root's seal of this very entry";
	if (why)
		*why = no;
	return !no;
}

/* The value of field name from get, NUL-terminated in buf (len bytes); NULL where there is none or it is longer. */
static const char *value_of(origin_get_fn get, void *ctx, const char *name, char *buf, size_t len)
{
	const void *data;
	size_t n, k = strlen(name);

	if (get(ctx, name, &data, &n) < 0 || n <= k || n - k - 1 >= len || memchr(data, '\0', n))
		return NULL;
	memcpy(buf, (const char *)data + k + 1, n - k - 1);
	buf[n - k - 1] = '\0';
	return buf;
}

/*
 * A version 2 seal's fingerprint of the core an entry holds (COREDUMP=, Storage=journal), which dump and debug act
 * on: of an entry (prefix ""), the SHA-256 of the field's value; of a seal, the field it wrote it in. Added to m as
 * canon() adds a field, where there is one. 0 or -errno.
 */
static int canon_core(origin_get_fn get, void *ctx, const char *prefix, FILE *m)
{
	char name[128], hex[DIGEST_HEX + 1];
	const void *data;
	size_t n;
	int r;

	if (prefix[0]) {
		(void) snprintf(name, sizeof(name), "%s%s", prefix, ORIGIN_CORE_DIGEST);
		if (get(ctx, name, &data, &n) < 0 || n <= strlen(name) || ((const char *)data)[strlen(name)] != '=')
			return 0;
		fprintf(m, "%s %zu:", ORIGIN_CORE_DIGEST, n - strlen(name) - 1);
		(void) fwrite((const char *)data + strlen(name) + 1, 1, n - strlen(name) - 1, m);
		fputc('\n', m);
		return 0;
	}
	if (get(ctx, "COREDUMP", &data, &n) < 0 || n < sizeof("COREDUMP") || ((const char *)data)[8] != '=')
		return 0;
	r = digest_hex((const char *)data + 9, n - 9, hex);
	if (r == 0)
		fprintf(m, "%s %d:%s\n", ORIGIN_CORE_DIGEST, DIGEST_HEX, hex);
	return r;
}

/* Field field (prefix before it: "" or ORIGIN_SEALED_PREFIX) from get, added to m as "NAME LENGTH:VALUE\n". */
static void canon_field(origin_get_fn get, void *ctx, const char *prefix, const char *field, FILE *m)
{
	char name[160];
	const void *data;
	size_t n, k;

	(void) snprintf(name, sizeof(name), "%s%s", prefix, field);
	k = strlen(name);
	if (get(ctx, name, &data, &n) < 0 || n <= k || ((const char *)data)[k] != '=')
		return;
	fprintf(m, "%s %zu:", field, n - k - 1);
	(void) fwrite((const char *)data + k + 1, 1, n - k - 1, m);
	fputc('\n', m);
}

/*
 * A version 3 seal's hooks: CORESINK_COLLECT, CORESINK_HOOKS, and each CORESINK_HOOK_KEY of the keys that names
 * (COLLECT_FIELDS_MAX at most), added to m as canon_field() adds them.
 */
static void canon_hooks(origin_get_fn get, void *ctx, const char *prefix, FILE *m)
{
	char name[64], keys[COLLECT_FIELDS_MAX * (COLLECT_KEY_MAX + 1) + 1], *save = NULL;
	const void *data;
	size_t n, k;
	unsigned count = 0;

	canon_field(get, ctx, prefix, "CORESINK_COLLECT", m);
	canon_field(get, ctx, prefix, "CORESINK_HOOKS", m);
	(void) snprintf(name, sizeof(name), "%sCORESINK_HOOKS", prefix);
	k = strlen(name);
	if (get(ctx, name, &data, &n) < 0 || n <= k || n - k - 1 >= sizeof(keys))
		return;
	memcpy(keys, (const char *)data + k + 1, n - k - 1);
	keys[n - k - 1] = '\0';
	for (char *key = strtok_r(keys, " ", &save); key && count < COLLECT_FIELDS_MAX;
	     key = strtok_r(NULL, " ", &save), count++) {
		(void) snprintf(name, sizeof(name), COLLECT_FIELD_PREFIX "%s", key);
		canon_field(get, ctx, prefix, name, m);
	}
}

/*
 * The sealed fields of an entry (prefix "") or of a seal (ORIGIN_SEALED_PREFIX), from get, in one canonical form
 * for the seal's version: "NAME LENGTH:VALUE\n" for each one present, in the list's order (any byte may be in a
 * value), from version 2 on the fingerprint of the core the entry holds, from version 3 on the hooks' fields.
 * 0 or -errno.
 */
int origin_canon(origin_get_fn get, void *ctx, const char *prefix, unsigned version, char **canon, size_t *len)
{
	FILE *m = open_memstream(canon, len);
	int r = 0;

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < origin_n_sealed_fields; i++)
		canon_field(get, ctx, prefix, origin_sealed_fields[i], m);
	if (version >= 2)
		r = canon_core(get, ctx, prefix, m);
	if (version >= 3)
		canon_hooks(get, ctx, prefix, m);
	if (fclose(m) != 0 || r < 0) {
		free(*canon);
		*canon = NULL;
		return r < 0 ? r : -ENOMEM;
	}
	return 0;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct seal *)a)->id, ((const struct seal *)b)->id);
}

/*
 * The version of the seal f holds: 1 where it says none (before the upgrade), else its word; 0 for a version this
 * reader does not know (it vouches for nothing here).
 */
static unsigned seal_version(struct entry_fields *f)
{
	char v[16];
	uint64_t n;

	if (!value_of(entry_fields_get, f, "CORESINK_SEAL_VERSION", v, sizeof(v)))
		return 1;
	return parse_u64(v, &n) == 0 && n >= 2 && n <= ORIGIN_SEAL_VERSION ? (unsigned)n : 0;
}

/*
 * The seal f holds (the journal's current entry), appended to s. 0 (also for a seal without an id, or of an unknown
 * version), or -errno.
 */
static int add_seal(struct entry_fields *f, struct seals *s, size_t *cap)
{
	char id[64], uid[16];
	struct seal x = { .version = seal_version(f) };
	int r;

	if (!x.version || !value_of(entry_fields_get, f, "CORESINK_SEAL", id, sizeof(id)) ||
	    !value_of(entry_fields_get, f, "COREDUMP_UID", uid, sizeof(uid)))
		return 0;
	if (s->n == *cap) {
		struct seal *p = reallocarray(s->s, *cap ? *cap * 2 : 64, sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->s = p;
		*cap = *cap ? *cap * 2 : 64;
	}
	x.id = strdup(id);
	x.uid = strdup(uid);
	r = !x.id || !x.uid ? -ENOMEM : origin_canon(entry_fields_get, f, ORIGIN_SEALED_PREFIX, x.version, &x.canon,
							&x.canon_len);
	if (r < 0) {
		free(x.id);
		free(x.uid);
		return r;
	}
	s->s[s->n++] = x;
	return 0;
}

/*
 * The cursor of the first crash entry of j with entry id id into first (NULL: none), whatever the reader's matches
 * will be: a copy of an entry comes after it. j's matches are flushed. 0 or -errno.
 */
static int first_of(sd_journal *j, const char *id, char **first)
{
	char match[96];
	int r;

	*first = NULL;
	sd_journal_flush_matches(j);
	(void) snprintf(match, sizeof(match), "CORESINK_ENTRY=%s", id);
	r = sd_journal_add_match(j, "MESSAGE_ID=" CORESINK_MESSAGE_ID, 0);
	if (r >= 0)
		r = sd_journal_add_match(j, match, 0);
	if (r >= 0)
		r = sd_journal_seek_head(j);
	if (r >= 0 && (r = sd_journal_next(j)) > 0)
		r = sd_journal_get_cursor(j, first);
	sd_journal_flush_matches(j);
	return r < 0 ? r : 0;
}

/* Reads the seals root sent in j into s, sorted, each with the first entry of its id. 0 or -errno. */
static int read_all(sd_journal *j, struct seals *s)
{
	struct entry_fields f = { .j = j };
	size_t cap = 0;
	int r = sd_journal_add_match(j, "MESSAGE_ID=" CORESINK_SEAL_MESSAGE_ID, 0);

	if (r >= 0)
		r = sd_journal_add_match(j, "_UID=0", 0);
	if (r >= 0)
		r = sd_journal_add_match(j, "_TRANSPORT=journal", 0);
	if (r >= 0)
		r = sd_journal_seek_head(j);
	while (r >= 0 && (r = sd_journal_next(j)) > 0)
		if ((r = entry_fields_load(&f)) == 0)
			r = add_seal(&f, s, &cap);
	entry_fields_free(&f);
	if (r < 0)
		return r;
	if (s->n)
		qsort(s->s, s->n, sizeof(*s->s), by_id);
	for (size_t i = 0; r >= 0 && i < s->n; i++) {
		if (i > 0 && strcmp(s->s[i].id, s->s[i - 1].id) == 0) {
			s->s[i].first = s->s[i - 1].first ? strdup(s->s[i - 1].first) : NULL;
			continue;
		}
		r = first_of(j, s->s[i].id, &s->s[i].first);
	}
	return r;
}

/*
 * Reads every seal root sent in j into s, and leaves j without matches, at its head. Call it before adding the
 * matches of the entries to judge. 0 or -errno.
 */
int origin_seals_read(sd_journal *j, struct seals *s)
{
	size_t threshold = 0;
	int r;

	*s = (struct seals) { 0 };
	/* The sealed fields are compared whole: a reader's threshold would cut them where journald compressed them. */
	(void) sd_journal_get_data_threshold(j, &threshold);
	(void) sd_journal_set_data_threshold(j, 0);
	r = read_all(j, s);
	(void) sd_journal_set_data_threshold(j, threshold);
	sd_journal_flush_matches(j);
	if (r >= 0)
		r = sd_journal_seek_head(j);
	if (r < 0)
		origin_seals_free(s);
	return r < 0 ? r : 0;
}

void origin_seals_free(struct seals *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->s[i].id);
		free(s->s[i].uid);
		free(s->s[i].canon);
		free(s->s[i].first);
	}
	free(s->s);
	*s = (struct seals) { 0 };
}

/*
 * Whether s holds a seal of entry id for uid whose sealed fields are those of the entry get reads (its canonical
 * form for the seal's version, made as needed); which one.
 */
bool origin_sealed_by(const struct seals *s, const char *id, const char *uid, origin_get_fn get, void *ctx,
		      const struct seal **which)
{
	char *canon[ORIGIN_SEAL_VERSION + 1] = { NULL };
	size_t len[ORIGIN_SEAL_VERSION + 1] = { 0 };
	bool yes = false;
	size_t lo = 0, hi = s ? s->n : 0;

	if (!id || !id[0] || !uid)
		return false;
	/* The first seal of id: they are sorted by it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->s[mid].id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; !yes && s && lo < s->n && strcmp(s->s[lo].id, id) == 0; lo++) {
		const struct seal *x = &s->s[lo];
		const unsigned v = x->version;

		if (strcmp(x->uid, uid) != 0 || v == 0 || v > ORIGIN_SEAL_VERSION ||
		    (!canon[v] && origin_canon(get, ctx, "", v, &canon[v], &len[v]) < 0))
			continue;
		yes = x->canon_len == len[v] && memcmp(x->canon, canon[v], len[v]) == 0;
		if (yes)
			*which = x;
	}
	for (unsigned v = 0; v <= ORIGIN_SEAL_VERSION; v++)
		free(canon[v]);
	return yes;
}

/* Whether the entry x holds, sent by uid, is the very entry a seal of s vouches for. */
static bool sealed_entry(struct entry_fields *x, const struct seals *s, const char *uid)
{
	char id[64];
	size_t threshold = 0;
	const struct seal *which = NULL;
	bool yes;

	if (!s || !s->n || !value_of(entry_fields_get, x, "CORESINK_ENTRY", id, sizeof(id)))
		return false;
	/* The sealed fields whole: entry_fields_get() asks the journal again, at this threshold, for a long one. */
	(void) sd_journal_get_data_threshold(x->j, &threshold);
	(void) sd_journal_set_data_threshold(x->j, 0);
	yes = origin_sealed_by(s, id, uid, entry_fields_get, x, &which) && which->first &&
	      sd_journal_test_cursor(x->j, which->first) > 0;
	(void) sd_journal_set_data_threshold(x->j, threshold);
	return yes;
}

/*
 * origin_trusted() of the entry x holds (entry_fields_load(): the journal's current entry), with the seals of its
 * journal, for reader (a uid; 0 for root).
 */
bool origin_of_entry(struct entry_fields *x, const struct seals *s, uid_t reader, const char **why)
{
	char me[16], i[32], t[32], u[16], cu[16];
	struct origin o = {
		.ident = value_of(entry_fields_get, x, "SYSLOG_IDENTIFIER", i, sizeof(i)),
		.transport = value_of(entry_fields_get, x, "_TRANSPORT", t, sizeof(t)),
		.uid = value_of(entry_fields_get, x, "_UID", u, sizeof(u)),
		.crash_uid = value_of(entry_fields_get, x, "COREDUMP_UID", cu, sizeof(cu)),
	};

	(void) snprintf(me, sizeof(me), "%u", (unsigned)reader);
	o.own = reader != 0 && is(o.uid, me);
	/* Only what the rest of the rule lets through needs its seal looked at. */
	o.sealed = !o.own && o.uid && !is(o.uid, "0") && is(o.crash_uid, o.uid) && is(o.ident, "coresink") &&
		   is(o.transport, "journal") && sealed_entry(x, s, o.uid);
	return origin_trusted(&o, why);
}

/* Whether the field "NAME=value" (len bytes) is one a seal repeats: of the list, or the hooks' (version 3). */
static bool sealed_field(const char *field, size_t len)
{
	const char *eq = memchr(field, '=', len);

	if (eq && ((eq - field == 16 && memcmp(field, "CORESINK_COLLECT", 16) == 0) ||
		   (eq - field == 14 && memcmp(field, "CORESINK_HOOKS", 14) == 0) ||
		   ((size_t)(eq - field) > strlen(COLLECT_FIELD_PREFIX) &&
		    memcmp(field, COLLECT_FIELD_PREFIX, strlen(COLLECT_FIELD_PREFIX)) == 0)))
		return true;

	for (size_t i = 0; eq && i < origin_n_sealed_fields; i++)
		if (strlen(origin_sealed_fields[i]) == (size_t)(eq - field) &&
		    memcmp(field, origin_sealed_fields[i], (size_t)(eq - field)) == 0)
			return true;
	return false;
}

/*
 * Vouches, as root, for the crash entry just filed in the crashing user's journal (sent with the user's uid, which
 * any user can send as): its id, the uid, a copy of each field a reader shows or acts on, and the fingerprint of
 * the core it holds (read from corefd, o->st.bytes of it, where the entry holds one), so that root's readers take
 * that entry, and no copy of it with any of them changed (its rule of ORIGIN_SEAL_VERSION, judged above).
 */
void origin_seal(const struct kargs *k, const struct outcome *o, const struct fields *entry, int corefd)
{
	char hex[DIGEST_HEX + 1];
	struct fields f;

	if (!o->entry_id[0])
		return;
	fields_init(&f, 6);
	fields_add(&f, "MESSAGE_ID=" CORESINK_SEAL_MESSAGE_ID);
	fields_add(&f, "MESSAGE=The entry of crash %d of uid %u, filed in that user's journal, is coresink's.",
		   (int)k->pid, (unsigned)k->uid);
	fields_add(&f, "CORESINK_SEAL=%s", o->entry_id);
	fields_add(&f, "CORESINK_SEAL_VERSION=%d", ORIGIN_SEAL_VERSION);
	/* A fingerprint that could not be made is left out: root's readers then do not take the entry (its core unvouched). */
	if (o->in_journal && digest_fd(corefd, o->st.bytes, hex) == 0)
		fields_add(&f, ORIGIN_SEALED_PREFIX ORIGIN_CORE_DIGEST "=%s", hex);
	fields_add(&f, "COREDUMP_PID=%d", (int)k->pid);
	fields_add(&f, "COREDUMP_UID=%u", (unsigned)k->uid);
	for (size_t i = 0; i < entry->n; i++)
		if (sealed_field(entry->iov[i].iov_base, entry->iov[i].iov_len))
			fields_add(&f, ORIGIN_SEALED_PREFIX "%.*s", (int)entry->iov[i].iov_len,
				   (const char *)entry->iov[i].iov_base);
	(void) journal_send(&f);
	fields_free(&f);
}
