/*
 * entries.c: the crashes coresinkctl shows, read from the journal with sd-journal: the local journal, a directory
 * of journal files (-D, what systemd-journal-remote collected) or files (--file); coresink's MESSAGE_ID and the
 * user's matches (as coredumpctl takes them: a PID, a COMM, an absolute EXE, or FIELD=VALUE; matches of one field
 * are alternatives, of different fields all apply); within --since and --until. Only entries coresink wrote are
 * kept (origin.c: any user may send one with its MESSAGE_ID), each entry id once (the first: a copy is not a second
 * crash), and a user who is not root sees only their own crashes: the others are counted, never shown.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "entries.h"
#include "report.h"

/* The stack traces in MESSAGE can be long; the core in COREDUMP= is never read here. */
#define DATA_THRESHOLD (4u << 20)

/* A match as coredumpctl takes it, into field ("COREDUMP_PID=1234"). 0 or -EINVAL. */
int entries_match(const char *m, char *field, size_t len)
{
	size_t digits = strspn(m, "0123456789");
	int n;

	if (!m[0])
		return -EINVAL;
	if (m[digits] == '\0')
		n = snprintf(field, len, "COREDUMP_PID=%s", m);
	else if (m[0] == '/')
		n = snprintf(field, len, "COREDUMP_EXE=%s", m);
	else if (strchr(m, '='))
		n = snprintf(field, len, "%s", m);
	else
		n = snprintf(field, len, "COREDUMP_COMM=%s", m);
	return n > 0 && (size_t)n < len ? 0 : -EINVAL;
}

/*
 * A time as journalctl takes the common forms of it: "@SECONDS", "now", "today", "yesterday", "tomorrow",
 * "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS]" (local time), "-N<unit>"; the one parser of a time every verb takes. 0, or
 * -EINVAL (a time before 1970 among them).
 */
int entries_parse_time(const char *s, uint64_t now_usec, uint64_t *usec)
{
	time_t now = (time_t)(now_usec / 1000000);
	struct tm tm;
	char *end;
	int day = 0;

	uint64_t ago;

	if (s[0] == '@')
		return parse_epoch_usec(s + 1, usec) < 0 ? -EINVAL : 0;
	if (strcmp(s, "now") == 0)
		return *usec = now_usec, 0;
	if (s[0] == '-' && isdigit((unsigned char)s[1])) {
		if (parse_duration(s + 1, 1000000, &ago) < 0 || ago > now_usec)
			return -EINVAL;
		*usec = now_usec - ago;
		return 0;
	}
	localtime_r(&now, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	if (strcmp(s, "today") == 0 || (strcmp(s, "yesterday") == 0 && (day = -1)) ||
	    (strcmp(s, "tomorrow") == 0 && (day = 1))) {
		tm.tm_mday += day;
	} else {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, "%Y-%m-%d", &tm);
		if (end && *end == ' ')
			end = strptime(end + 1, strchr(end + 1, ':') != strrchr(end + 1, ':') ? "%H:%M:%S" : "%H:%M",
				       &tm);
		if (!end || *end)
			return -EINVAL;
	}
	tm.tm_isdst = -1;
	now = mktime(&tm);
	/* A time before 1970 (mktime's -1 among them) is no journal's: refused, never wrapped into the far future. */
	if (now < 0)
		return -EINVAL;
	*usec = (uint64_t)now * 1000000;
	return 0;
}

/* The journal the selection names, opened. 0 or -errno. */
int entries_open(const struct selection *s, void **journal)
{
	sd_journal *j = NULL;
	int r;

	if (s->directory)
		r = sd_journal_open_directory(&j, s->directory, 0);
	else if (s->files)
		r = sd_journal_open_files(&j, s->files, 0);
	else
		r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
	if (r < 0)
		return r;
	(void) sd_journal_set_data_threshold(j, DATA_THRESHOLD);
	*journal = j;
	return 0;
}

/*
 * Field name of an entry, from get, as a new string ("" where it has none); NULL for no memory. A NUL byte in the
 * value (anyone may send one) is held as C0 80, which escape.c shows as a NUL: the string does not end there, and
 * what follows it is shown too.
 */
static char *get(origin_get_fn fn, void *ctx, const char *name)
{
	const void *data;
	const char *v;
	size_t n, k = strlen(name), nuls = 0;
	char *out;

	if (fn(ctx, name, &data, &n) < 0 || n <= k)
		return strdup("");
	v = (const char *)data + k + 1;
	n -= k + 1;
	for (size_t i = 0; i < n; i++)
		nuls += v[i] == '\0';
	out = malloc(n + nuls + 1);
	if (!out)
		return NULL;
	for (size_t i = 0, o = 0; i < n; i++) {
		if (v[i] != '\0') {
			out[o++] = v[i];
			continue;
		}
		out[o++] = (char)0xc0;
		out[o++] = (char)0x80;
	}
	out[n + nuls] = '\0';
	return out;
}

/* A number of the entry's, where it is one (a sign allowed); fallback where it is not. */
static long number(const char *s, long fallback)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return !s[0] || *end || errno ? fallback : v;
}

static void crash_free(struct record *c)
{
	char **strings[] = { &c->cursor, &c->exe, &c->comm, &c->cmdline, &c->cgroup, &c->unit, &c->user_unit,
			     &c->slice, &c->owner_uid, &c->hostname, &c->boot_id, &c->machine_id, &c->filename,
			     &c->timestamp, &c->message, &c->result, &c->entry_id, &c->signature, &c->truncated,
			     &c->size, &c->package_name, &c->package_version, &c->runtime, &c->container_id,
			     &c->container_name, &c->image, &c->pod_name, &c->pod_namespace, &c->pod_labels, &c->labels,
			     &c->collect, &c->hooks };

	for (size_t i = 0; i < ELEMENTSOF(strings); i++) {
		free(*strings[i]);
		*strings[i] = NULL;
	}
}

/*
 * The collect hooks' fields of an entry, from get: each key CORESINK_HOOKS names (of A-Z, 0-9 and _; the first
 * COLLECT_FIELDS_MAX) with its CORESINK_HOOK_KEY, as "KEY=VALUE\n" lines in a new string. NULL for no memory.
 */
static char *hook_text(origin_get_fn fn, void *ctx)
{
	char *keys = get(fn, ctx, "CORESINK_HOOKS"), *save = NULL, *text = NULL;
	unsigned count = 0;
	size_t len = 0;
	FILE *m = keys ? open_memstream(&text, &len) : NULL;

	for (char *k = m ? strtok_r(keys, " ", &save) : NULL; k && count < COLLECT_FIELDS_MAX;
	     k = strtok_r(NULL, " ", &save), count++) {
		char name[80], *v;

		if (strlen(k) > COLLECT_KEY_MAX || strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(k))
			continue;
		(void) snprintf(name, sizeof(name), COLLECT_FIELD_PREFIX "%s", k);
		v = get(fn, ctx, name);
		if (v)
			fprintf(m, "%s=%s\n", k, v);
		free(v);
	}
	free(keys);
	if (m && fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text ? text : strdup("");
}

/*
 * An entry's fields, from get (any bytes, any lengths: the entry may be anyone's), into c, all of them strings ("" for
 * a field it lacks), its numbers parsed where they are numbers; cursor, usec and journal_core are the journal's to
 * set. 0 or -ENOMEM (c freed).
 */
int record_read(struct record *c, origin_get_fn fn, void *ctx)
{
	static const struct { const char *name; size_t off; } text[] = {
		{ "COREDUMP_EXE", offsetof(struct record, exe) }, { "COREDUMP_COMM", offsetof(struct record, comm) },
		{ "COREDUMP_CMDLINE", offsetof(struct record, cmdline) },
		{ "COREDUMP_CGROUP", offsetof(struct record, cgroup) }, { "COREDUMP_UNIT", offsetof(struct record, unit) },
		{ "COREDUMP_USER_UNIT", offsetof(struct record, user_unit) },
		{ "COREDUMP_SLICE", offsetof(struct record, slice) },
		{ "COREDUMP_OWNER_UID", offsetof(struct record, owner_uid) },
		{ "COREDUMP_HOSTNAME", offsetof(struct record, hostname) }, { "_BOOT_ID", offsetof(struct record, boot_id) },
		{ "_MACHINE_ID", offsetof(struct record, machine_id) },
		{ "COREDUMP_FILENAME", offsetof(struct record, filename) },
		{ "COREDUMP_TIMESTAMP", offsetof(struct record, timestamp) }, { "MESSAGE", offsetof(struct record, message) },
		{ "CORESINK_RESULT", offsetof(struct record, result) }, { "CORESINK_ENTRY", offsetof(struct record, entry_id) },
		{ "CORESINK_SIGNATURE", offsetof(struct record, signature) },
		{ "COREDUMP_TRUNCATED", offsetof(struct record, truncated) },
		/* The raw core's size, as the handler counted it (coredumpctl's COREDUMP_SIZE is not written). */
		{ "CORESINK_SIZE", offsetof(struct record, size) },
		{ "COREDUMP_PACKAGE_NAME", offsetof(struct record, package_name) },
		{ "COREDUMP_PACKAGE_VERSION", offsetof(struct record, package_version) },
		{ "CORESINK_CONTAINER_RUNTIME", offsetof(struct record, runtime) },
		{ "CORESINK_CONTAINER_ID", offsetof(struct record, container_id) },
		{ "CORESINK_CONTAINER_NAME", offsetof(struct record, container_name) },
		{ "CORESINK_CONTAINER_IMAGE", offsetof(struct record, image) },
		{ "CORESINK_POD_NAME", offsetof(struct record, pod_name) },
		{ "CORESINK_POD_NAMESPACE", offsetof(struct record, pod_namespace) },
		{ "CORESINK_POD_LABELS", offsetof(struct record, pod_labels) },
		{ "CORESINK_CONTAINER_LABELS", offsetof(struct record, labels) },
	};
	char *pid = get(fn, ctx, "COREDUMP_PID"), *uid = get(fn, ctx, "COREDUMP_UID"), *gid = get(fn, ctx, "COREDUMP_GID"),
	     *sig = get(fn, ctx, "COREDUMP_SIGNAL");
	int r = pid && uid && gid && sig ? 0 : -ENOMEM;

	if (r == 0) {
		c->pid = (pid_t)number(pid, 0);
		c->uid = (uid_t)number(uid, -1);
		c->gid = (gid_t)number(gid, -1);
		c->sig = (int)number(sig, 0);
	}
	free(pid), free(uid), free(gid), free(sig);
	for (size_t i = 0; i < ELEMENTSOF(text); i++) {
		char **slot = (char **)((char *)c + text[i].off);

		*slot = get(fn, ctx, text[i].name);
		if (!*slot)
			r = -ENOMEM;
	}
	c->collect = get(fn, ctx, "CORESINK_COLLECT");
	c->hooks = hook_text(fn, ctx);
	if (!c->collect || !c->hooks)
		r = -ENOMEM;
	if (r < 0)
		crash_free(c);
	return r;
}


/* The entry x holds (the journal's current one) into c. 0 or -ENOMEM. */
static int read_crash(struct entry_fields *x, struct record *c)
{
	int r;

	*c = (struct record) { 0 };
	(void) sd_journal_get_realtime_usec(x->j, &c->usec);
	/* Whether the entry holds the core itself, without reading it. */
	c->journal_core = entry_fields_has(x, "COREDUMP");
	if (sd_journal_get_cursor(x->j, &c->cursor) < 0)
		return -ENOMEM;
	r = record_read(c, entry_fields_get, x);
	if (r < 0) {
		free(c->cursor);
		c->cursor = NULL;
	}
	return r;
}

void record_free(struct record *c)
{
	crash_free(c);
}

/* The entries of one MESSAGE_ID ("MESSAGE_ID=..."), and the user's matches. 0 or -errno. */
static int add_matches(sd_journal *j, const char *id, const struct selection *s)
{
	char field[4096];
	int r = sd_journal_add_match(j, id, 0);

	for (int i = 0; r >= 0 && i < s->n_matches; i++) {
		r = entries_match(s->matches[i], field, sizeof(field));
		if (r == 0)
			r = sd_journal_add_match(j, field, 0);
	}
	return r;
}

static int append(struct found *f, size_t *cap, const struct record *c)
{
	if (f->n == *cap) {
		size_t want = *cap ? *cap * 2 : 64;
		struct record *p = reallocarray(f->c, want, sizeof(*p));

		if (!p)
			return -ENOMEM;
		f->c = p;
		*cap = want;
	}
	f->c[f->n++] = *c;
	return 0;
}

/* Keeps the newest n of the entries read oldest first, then turns them newest first where asked. */
static void trim(const struct selection *s, struct found *f)
{
	if (s->newest > 0 && f->n > (size_t)s->newest) {
		size_t drop = f->n - (size_t)s->newest;

		for (size_t i = 0; i < drop; i++)
			crash_free(&f->c[i]);
		memmove(f->c, f->c + drop, (size_t)s->newest * sizeof(*f->c));
		f->n = (size_t)s->newest;
	}
	for (size_t i = 0; s->reverse && i < f->n / 2; i++) {
		struct record t = f->c[i];

		f->c[i] = f->c[f->n - 1 - i];
		f->c[f->n - 1 - i] = t;
	}
}

/* The entry ids taken so far, an open-addressing set: a copy of an entry (its id reused) is one crash, the first. */
struct idset {
	char **slot;
	size_t cap, n;
};

static size_t hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/* Adds id: 1 added, 0 there already, -ENOMEM. An empty id (an entry without one) is always new. */
static int idset_add(struct idset *set, const char *id)
{
	size_t h;

	if (!id[0])
		return 1;
	if ((set->n + 1) * 2 > set->cap) {
		struct idset bigger = { .cap = set->cap ? set->cap * 2 : 256, .n = set->n };

		bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot));
		if (!bigger.slot)
			return -ENOMEM;
		for (size_t i = 0; i < set->cap; i++) {
			if (!set->slot[i])
				continue;
			for (h = hash(set->slot[i]) % bigger.cap; bigger.slot[h]; h = (h + 1) % bigger.cap)
				;
			bigger.slot[h] = set->slot[i];
		}
		free(set->slot);
		*set = bigger;
	}
	for (h = hash(id) % set->cap; set->slot[h]; h = (h + 1) % set->cap)
		if (strcmp(set->slot[h], id) == 0)
			return 0;
	set->slot[h] = strdup(id);
	if (!set->slot[h])
		return -ENOMEM;
	set->n++;
	return 1;
}

static void idset_free(struct idset *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->slot[i]);
	free(set->slot);
}

/*
 * The one journal reader of both programs: each entry of the selection with one of ids' MESSAGE_IDs (a NULL-ended
 * list, read one id after the other), from since to until and matching the user's matches, that coresink wrote
 * (origin.c; the others are counted in *foreign), handed to each with its fields read once (entry_fields_get),
 * threshold the journal's data threshold for the long ones (a field may come longer: each cuts what it keeps). each
 * returns 0 to go on, or -errno to stop with it. 0 or -errno.
 */
int entries_walk(const struct selection *s, const char *const *ids, size_t threshold, entry_fn each, void *data,
		 unsigned *foreign)
{
	struct seals seals = { 0 };
	struct entry_fields x = { 0 };
	sd_journal *j;
	uid_t me = getuid();
	int r;

	r = entries_open(s, (void **)&j);
	if (r < 0)
		return r;
	x.j = j;
	(void) sd_journal_set_data_threshold(j, threshold);
	r = origin_seals_read(j, &seals);
	for (unsigned k = 0; r >= 0 && ids[k]; k++) {
		sd_journal_flush_matches(j);
		r = add_matches(j, ids[k], s);
		if (r >= 0)
			r = s->since ? sd_journal_seek_realtime_usec(j, s->since) : sd_journal_seek_head(j);
		while (r >= 0 && (r = sd_journal_next(j)) > 0) {
			struct entry_at e = { entry_fields_get, &x, 0, k };

			(void) sd_journal_get_realtime_usec(j, &e.usec);
			if (s->until && e.usec > s->until)
				break;
			r = entry_fields_load(&x);
			if (r < 0)
				break;
			if (!origin_of_entry(&x, &seals, me, NULL))
				(*foreign)++;
			else
				r = each(data, &e);
		}
	}
	sd_journal_close(j);
	entry_fields_free(&x);
	origin_seals_free(&seals);
	return r < 0 ? r : 0;
}

/* What entries_find gathers as it walks. */
struct gather {
	struct found *f;
	struct idset ids;
	size_t cap;
	uid_t me;
};

/* Takes one crash entry into the found list: each entry id once, and only the user's own unless root. */
static int gather_one(void *data, const struct entry_at *e)
{
	struct gather *g = data;
	struct record c;
	int r = read_crash(e->ctx, &c);

	if (r < 0)
		return r;
	r = idset_add(&g->ids, c.entry_id);
	if (r <= 0) {
		crash_free(&c);
		if (r == 0)
			g->f->foreign++;
		return r;
	}
	if (g->me != 0 && c.uid != g->me) {
		g->f->hidden++;
		crash_free(&c);
		return 0;
	}
	r = append(g->f, &g->cap, &c);
	if (r < 0)
		crash_free(&c);
	return r;
}

/* Reads the entries the selection names, oldest first (newest first with reverse). 0 or -errno. */
int entries_find(const struct selection *s, struct found *f)
{
	static const char *const crashes[] = { "MESSAGE_ID=" CORESINK_MESSAGE_ID, NULL };
	struct gather g = { .f = f, .me = getuid() };
	int r;

	*f = (struct found) { 0 };
	r = entries_walk(s, crashes, DATA_THRESHOLD, gather_one, &g, &f->foreign);
	idset_free(&g.ids);
	if (r < 0) {
		entries_free(f);
		return r;
	}
	trim(s, f);
	return 0;
}

void entries_free(struct found *f)
{
	for (size_t i = 0; i < f->n; i++)
		crash_free(&f->c[i]);
	free(f->c);
	*f = (struct found) { 0 };
}
