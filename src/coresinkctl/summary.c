/*
 * summary.c: coresinkctl summary (the handler's --summary hands over to it), the crashes in the journal grouped by
 * bug (CORESINK_SIGNATURE, docs/signatures.md; two signatures seen with the same CORESINK_SIGNATURE_KEYS are one
 * bug named with more or less debug info, one group, shown by its newest crash's signature): for each, how many
 * crashes, on how many hosts, first and last seen, the executable, its top frames, and the newest crash's core.
 * Read through the one journal reader (entries_walk), from the local
 * journal or from a directory of journal files (-D: what systemd-journal-remote collected from a fleet), all of it
 * or from --since; a table for people, or --json for tools. Crash entries without a signature (older coresink, a
 * crash whose handler died) are counted apart, and so are entries with coresink's MESSAGE_ID that coresink did not
 * write (origin.c): any user can send one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "analyse.h"
#include "admin.h"
#include "report.h"
#include "summary.h"

#define HOSTS_MAX 32        /* distinct hosts named per signature; more are counted as "32+" */
#define KEYS_MAX 8          /* distinct keys kept per signature (builds of it): more are not joined by */
#define ALSO_MAX 8          /* other signatures named per group; more are joined, not named */
#define SPACES_MAX 16       /* distinct Kubernetes namespaces counted per signature; more are "others" */
#define FIELD_MAX 512

struct group {
	uint64_t key;         /* the signature as a number; 0: a free slot */
	char sig[17];
	uint64_t count, first, last;   /* realtime, microseconds */
	char exe[FIELD_MAX], top[FIELD_MAX], core[FIELD_MAX], from[16];
	char *hosts[HOSTS_MAX];
	unsigned n_hosts;
	bool more_hosts;
	uint64_t keys[KEYS_MAX];
	unsigned n_keys;
	char also[ALSO_MAX][17];   /* the other signatures joined into it (sigjoin.c) */
	char *spaces[SPACES_MAX];  /* the pods' namespaces its crashes were in (CORESINK_POD_NAMESPACE) */
	uint64_t space_count[SPACES_MAX], other_spaces;
	unsigned n_also;
};

struct table {
	struct group *g;
	size_t cap, n;
	uint64_t unsigned_entries;
	uint64_t foreign;     /* entries with coresink's MESSAGE_ID that coresink did not write (origin.c) */
};

/* Where the entry's fields come from: the journal's current entry, or any origin_get_fn (the fuzzer's). */
struct source {
	origin_get_fn fn;
	void *ctx;
};


/* The value of field name in the entry into buf ("" when it has none), cut to len. */
static void get(const struct source *e, const char *name, char *buf, size_t len)
{
	const void *data;
	size_t n, k = strlen(name);

	buf[0] = '\0';
	if (e->fn(e->ctx, name, &data, &n) < 0 || n <= k + 1)
		return;
	n -= k + 1;
	if (n >= len)
		n = len - 1;
	memcpy(buf, (const char *)data + k + 1, n);
	buf[n] = '\0';
}

static int grow(struct table *t)
{
	struct table bigger = { .cap = t->cap ? t->cap * 2 : 1024, .n = t->n,
				.unsigned_entries = t->unsigned_entries, .foreign = t->foreign };

	bigger.g = calloc(bigger.cap, sizeof(*bigger.g));
	if (!bigger.g)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t h;

		if (!t->g[i].key)
			continue;
		for (h = t->g[i].key % bigger.cap; bigger.g[h].key; h = (h + 1) % bigger.cap)
			;
		bigger.g[h] = t->g[i];
	}
	free(t->g);
	*t = bigger;
	return 0;
}

/* The group of signature sig (16 hex digits), made where missing; NULL for no memory or not a signature. */
static struct group *group_of(struct table *t, const char *sig)
{
	uint64_t key;
	size_t h;

	if (parse_hex64(sig, &key) < 0)
		return NULL;
	if ((t->n + 1) * 2 > t->cap && grow(t) < 0)
		return NULL;
	for (h = key % t->cap; t->g[h].key && t->g[h].key != key; h = (h + 1) % t->cap)
		;
	if (!t->g[h].key) {
		t->g[h] = (struct group) { .key = key, .first = UINT64_MAX };
		(void) snprintf(t->g[h].sig, sizeof(t->g[h].sig), "%016" PRIx64, key);
		t->n++;
	}
	return &t->g[h];
}

static void add_host(struct group *g, const char *host)
{
	for (unsigned i = 0; i < g->n_hosts; i++)
		if (strcmp(g->hosts[i], host) == 0)
			return;
	if (g->n_hosts == HOSTS_MAX) {
		g->more_hosts = true;
		return;
	}
	g->hosts[g->n_hosts] = strdup(host);
	if (g->hosts[g->n_hosts])
		g->n_hosts++;
}

/*
 * Counts a crash in a pod of namespace ns for g. A name that is not clean text (no Kubernetes namespace is: they are
 * DNS labels) counts among the others, in every view: a JSON key is a string, and escape_json() writes bytes that are
 * not UTF-8 as an array (fuzz_entry's finding, kept in its corpus).
 */
static void add_space(struct group *g, const char *ns, uint64_t n)
{
	unsigned i;

	if (!escape_clean(ns)) {
		g->other_spaces += n;
		return;
	}
	for (i = 0; i < SPACES_MAX && g->spaces[i]; i++)
		if (strcmp(g->spaces[i], ns) == 0)
			break;
	if (i < SPACES_MAX && !g->spaces[i])
		g->spaces[i] = strdup(ns);
	if (i < SPACES_MAX && g->spaces[i])
		g->space_count[i] += n;
	else
		g->other_spaces += n;
}

static void group_free(struct group *g)
{
	for (unsigned h = 0; h < g->n_hosts; h++)
		free(g->hosts[h]);
	g->n_hosts = 0;
	for (unsigned i = 0; i < SPACES_MAX; i++) {
		free(g->spaces[i]);
		g->spaces[i] = NULL;
	}
}

static void add_keys(struct group *g, const char *hex)
{
	uint64_t keys;

	if (parse_hex64(hex, &keys) < 0 || g->n_keys == KEYS_MAX)
		return;
	for (unsigned i = 0; i < g->n_keys; i++)
		if (g->keys[i] == keys)
			return;
	g->keys[g->n_keys++] = keys;
}

static void add_also(struct group *g, const char *sig)
{
	for (unsigned i = 0; i < g->n_also; i++)
		if (strcmp(g->also[i], sig) == 0)
			return;
	if (strcmp(g->sig, sig) != 0 && g->n_also < ALSO_MAX)
		(void) snprintf(g->also[g->n_also++], sizeof(g->also[0]), "%s", sig);
}

/* Group from into group to: their counts and hosts, the newest crash speaking for both. from's hosts are freed. */
static void merge(struct group *to, struct group *from)
{
	to->count += from->count;
	if (from->first < to->first)
		to->first = from->first;
	for (unsigned h = 0; h < from->n_hosts; h++)
		add_host(to, from->hosts[h]);
	to->more_hosts |= from->more_hosts;
	for (unsigned i = 0; i < SPACES_MAX && from->spaces[i]; i++)
		add_space(to, from->spaces[i], from->space_count[i]);
	to->other_spaces += from->other_spaces;
	group_free(from);
	for (unsigned i = 0; i < from->n_also; i++)
		add_also(to, from->also[i]);
	if (from->last > to->last) {
		char older[sizeof(to->sig)];

		memcpy(older, to->sig, sizeof(older));
		memmove(to->sig, from->sig, sizeof(to->sig));
		add_also(to, older);
		memcpy(to->exe, from->exe, sizeof(to->exe));
		memcpy(to->top, from->top, sizeof(to->top));
		memcpy(to->core, from->core, sizeof(to->core));
		memcpy(to->from, from->from, sizeof(to->from));
		to->last = from->last;
	} else {
		add_also(to, from->sig);
	}
	/* The newest's signature is no more an other one. */
	for (unsigned i = 0; i < to->n_also; i++)
		if (strcmp(to->also[i], to->sig) == 0)
			memmove(to->also[i], to->also[--to->n_also], sizeof(to->also[0]));
}

/* The groups (packed, t->n of them) of one bug by their keys joined into one (sigjoin.c). 0 or -ENOMEM. */
static int join(struct table *t)
{
	struct sigjoin_ref *refs = calloc(t->n * KEYS_MAX + 1, sizeof(*refs));
	size_t *root = calloc(t->n + 1, sizeof(*root)), nrefs = 0, n = 0;

	if (!refs || !root) {
		free(refs);
		free(root);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++)
		for (unsigned k = 0; k < t->g[i].n_keys; k++)
			refs[nrefs++] = (struct sigjoin_ref) { .keys = t->g[i].keys[k], .group = i };
	sigjoin(refs, nrefs, root, t->n);
	for (size_t i = 0; i < t->n; i++)
		if (root[i] != i)
			merge(&t->g[root[i]], &t->g[i]);
	/* A retrace whose crash is not in the journal read (--since) counts nothing. */
	for (size_t i = 0; i < t->n; i++)
		if (root[i] == i && t->g[i].count > 0)
			t->g[n++] = t->g[i];
		else if (root[i] == i)
			group_free(&t->g[i]);
	t->n = n;
	free(refs);
	free(root);
	return 0;
}

/* The first frame of CORESINK_SIGNATURE_TEXT ("2;SIGSEGV;a!f;b!g"): the signal and the frames, as shown. */
static void top_of(const char *text, char *buf, size_t len)
{
	const char *p = strchr(text, ';');

	(void) snprintf(buf, len, "%s", p ? p + 1 : text);
}

/* The newest crash, or a retrace of it, speaks for the group. */
static void take_newest(const struct source *j, struct group *g, uint64_t at)
{
	char field[FIELD_MAX];

	if (at < g->last)
		return;
	g->last = at;
	get(j, "COREDUMP_EXE", g->exe, sizeof(g->exe));
	get(j, "CORESINK_SIGNATURE_TEXT", field, sizeof(field));
	top_of(field, g->top, sizeof(g->top));
	get(j, "COREDUMP_FILENAME", g->core, sizeof(g->core));
	get(j, "CORESINK_SIGNATURE_FROM", g->from, sizeof(g->from));
}

/* Takes an entry coresink wrote (a crash's, or a retrace's: retraced.c), written at at, into its group. */
static void group_entry(struct table *t, const struct source *j, uint64_t at, bool retrace)
{
	char sig[32], host[256], field[FIELD_MAX];
	struct group *g;

	get(j, "CORESINK_SIGNATURE", sig, sizeof(sig));
	g = sig[0] ? group_of(t, sig) : NULL;
	if (!g) {
		t->unsigned_entries += !retrace;
		return;
	}
	get(j, "CORESINK_SIGNATURE_KEYS", field, sizeof(field));
	add_keys(g, field);
	if (retrace) {
		/*
		 * Not another crash: its signature joins the crash's by their keys, and speaks for it (more names), as
		 * of just after the crash's entry (CORESINK_RETRACE_OF_USEC).
		 */
		uint64_t of = 0;

		get(j, "CORESINK_RETRACE_OF_USEC", field, sizeof(field));
		(void) parse_u64(field, &of);
		take_newest(j, g, of + 1);
		return;
	}
	g->count++;
	if (at < g->first)
		g->first = at;
	get(j, "_HOSTNAME", host, sizeof(host));
	add_host(g, host[0] ? host : "-");
	get(j, "CORESINK_POD_NAMESPACE", field, sizeof(field));
	if (field[0])
		add_space(g, field, 1);
	take_newest(j, g, at);
}

/* Takes an entry coresink wrote (entries_walk: the crashes', then the retraces') into its group. */
static int take(void *data, const struct entry_at *e)
{
	const struct source src = { e->fn, e->ctx };

	group_entry(data, &src, e->usec, e->id == 1);
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->last < y->last ? 1 : x->last > y->last ? -1 : 0;
}

static void stamp(uint64_t usec, char *buf, size_t len)
{
	time_t s = (time_t)(usec / 1000000);
	struct tm tm;

	if (!gmtime_r(&s, &tm) || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		(void) snprintf(buf, len, "%" PRIu64, usec);
}

static void print_table(const struct table *t, FILE *f)
{
	fprintf(f, "%-16s %7s %5s %-20s %-20s %-24s %s\n", "SIGNATURE", "CRASHES", "HOSTS", "FIRST", "LAST",
		"EXECUTABLE", "TOP FRAMES");
	for (size_t i = 0; i < t->n; i++) {
		const struct group *g = &t->g[i];
		char first[32], last[32];
		const char *exe = strrchr(g->exe, '/') ? strrchr(g->exe, '/') + 1 : g->exe;

		char ex[4 * FIELD_MAX], top[4 * FIELD_MAX], core[4 * FIELD_MAX];

		stamp(g->first, first, sizeof(first));
		stamp(g->last, last, sizeof(last));
		/* The entries' text, another host's too (-D): escaped, as every field that reaches the terminal. */
		(void) escape_text(ex, sizeof(ex), exe[0] ? exe : "-", ESCAPE_BACKSLASH);
		(void) escape_text(top, sizeof(top), g->top, ESCAPE_BACKSLASH);
		(void) escape_text(core, sizeof(core), g->core, ESCAPE_BACKSLASH);
		fprintf(f, "%-16s %7" PRIu64 " %4u%s %-20s %-20s %-24s %s%s\n", g->sig, g->count, g->n_hosts,
			g->more_hosts ? "+" : " ", first, last, ex, top,
			strncmp(g->from, "trace", 5) == 0 ? "" : " (weaker: no frame)");
		if (g->core[0])
			fprintf(f, "%-16s newest core: %s\n", "", core);
		if (g->spaces[0]) {
			fprintf(f, "%-16s in pods of namespaces:", "");
			for (unsigned n = 0; n < SPACES_MAX && g->spaces[n]; n++) {
				(void) escape_text(ex, sizeof(ex), g->spaces[n], ESCAPE_BACKSLASH);
				fprintf(f, " %s %" PRIu64, ex, g->space_count[n]);
			}
			if (g->other_spaces)
				fprintf(f, " others %" PRIu64, g->other_spaces);
			fputc('\n', f);
		}
		for (unsigned a = 0; a < g->n_also; a++)
			fprintf(f, "%-16s same bug as %s (its frames named with other debug info)\n", "", g->also[a]);
	}
	if (t->unsigned_entries)
		fprintf(f, "%" PRIu64 " crash entries without a signature (older coresink, or a handler that died)\n",
			t->unsigned_entries);
	if (t->foreign)
		fprintf(f, "%" PRIu64 " entries with coresink's MESSAGE_ID skipped: coresink did not write them\n",
			t->foreign);
}

static void print_json(const struct table *t, FILE *f)
{
	fputs("{\"signatures\":[", f);
	for (size_t i = 0; i < t->n; i++) {
		const struct group *g = &t->g[i];

		fprintf(f, "%s\n{\"signature\":\"%s\",\"crashes\":%" PRIu64 ",\"first_usec\":%" PRIu64
			",\"last_usec\":%" PRIu64 ",\"weaker\":%s,\"hosts\":[", i ? "," : "", g->sig, g->count, g->first,
			g->last, strncmp(g->from, "trace", 5) == 0 ? "false" : "true");
		for (unsigned h = 0; h < g->n_hosts; h++) {
			fputs(h ? "," : "", f);
			escape_json(f, g->hosts[h], strlen(g->hosts[h]));
		}
		fprintf(f, "],\"more_hosts\":%s,\"executable\":", g->more_hosts ? "true" : "false");
		escape_json(f, g->exe, strlen(g->exe));
		fputs(",\"top\":", f);
		escape_json(f, g->top, strlen(g->top));
		fputs(",\"newest_core\":", f);
		escape_json(f, g->core, strlen(g->core));
		fputs(",\"namespaces\":{", f);
		for (unsigned n = 0; n < SPACES_MAX && g->spaces[n]; n++) {
			fputs(n ? "," : "", f);
			escape_json(f, g->spaces[n], strlen(g->spaces[n]));
			fprintf(f, ":%" PRIu64, g->space_count[n]);
		}
		fprintf(f, "},\"other_namespaces\":%" PRIu64, g->other_spaces);
		fputs(",\"joined\":[", f);
		for (unsigned a = 0; a < g->n_also; a++)
			fprintf(f, "%s\"%s\"", a ? "," : "", g->also[a]);
		fputc(']', f);
		fputc('}', f);
	}
	fprintf(f, "\n],\"without_signature\":%" PRIu64 ",\"skipped_not_coresinks\":%" PRIu64 "}\n",
		t->unsigned_entries, t->foreign);
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		group_free(&t->g[i]);
	free(t->g);
}

/* The groups read into t packed at its start, those of one bug joined, most crashes first. 0 or -ENOMEM. */
static int settle(struct table *t)
{
	size_t n = 0;
	int r;

	for (size_t i = 0; i < t->cap; i++)
		if (t->g[i].key)
			t->g[n++] = t->g[i];
	t->n = n;
	r = join(t);
	/* No group: no table (qsort's array may not be NULL, even for none). */
	if (t->n > 1)
		qsort(t->g, t->n, sizeof(*t->g), by_count);
	return r;
}

/*
 * Reads every crash entry the selection names into t, the groups then packed at its start, most crashes first: the
 * crashes, then the retraces (a few, which join groups but count no crash). Only the fields read here are wanted: a
 * stack trace of 64 threads is not read 100000 times. 0 or -errno.
 */
static int read_groups(const struct selection *s, struct table *t)
{
	static const char *const ids[] = { "MESSAGE_ID=" CORESINK_MESSAGE_ID, "MESSAGE_ID=" CORESINK_RETRACE_MESSAGE_ID,
					   NULL };
	unsigned foreign = 0;
	int r = entries_walk(s, ids, FIELD_MAX, take, t, &foreign);

	t->foreign += foreign;
	return r < 0 ? r : settle(t);
}

/*
 * The summary of n entries (each read by fn from ctxs[i], written at usec[i]), taken as coresink's, printed to f
 * as a table or JSON: what summary_main() prints of a journal's, for the fuzzer (fuzz_entry). 0 or -ENOMEM.
 */
int summary_of(origin_get_fn fn, void *const *ctxs, const uint64_t *usec, size_t n, FILE *f, bool json)
{
	struct table t = { .n = 0 };
	int r;

	for (size_t i = 0; i < n; i++) {
		const struct source e = { fn, ctxs[i] };

		group_entry(&t, &e, usec[i], false);
	}
	r = settle(&t);
	if (r == 0 && json)
		print_json(&t, f);
	else if (r == 0)
		print_table(&t, f);
	table_free(&t);
	return r;
}

/* --since as every verb takes a time (entries_parse_time), into microseconds; 0 without one. 0 or -EINVAL. */
static int parse_since(const char *s, uint64_t *usec)
{
	*usec = 0;
	if (!s)
		return 0;
	return entries_parse_time(s, clock_realtime_us(), usec);
}

/*
 * coresinkctl summary [--json] [-D DIR] [--since TIME]: 0, EXIT_USAGE, or EXIT_SYSTEM when the journal cannot be
 * read.
 */
int summary_main(const char *directory, const char *since, bool json)
{
	struct table t = { .n = 0 };
	struct selection sel = { .directory = directory };
	int r;

	if (parse_since(since, &sel.since) < 0)
		return fail_code(EXIT_USAGE, "--since takes a time as journalctl does (@SECONDS, YYYY-MM-DD ..., "
				 "-N<unit>), from 1970 on: %s", since);
	r = read_groups(&sel, &t);
	if (r < 0) {
		(void) fail_code(0, "reading the journal%s%s: %s", directory ? " in " : "", directory ? directory : "",
				 strerror(-r));
		table_free(&t);
		return EXIT_SYSTEM;
	}
	if (json)
		print_json(&t, stdout);
	else
		print_table(&t, stdout);
	table_free(&t);
	return 0;
}
