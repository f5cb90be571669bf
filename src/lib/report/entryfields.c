/*
 * entryfields.c: a journal entry's fields read once, for the readers that ask an entry for dozens of them (the trust
 * rule, coresinkctl's records, --summary). libsystemd's sd_journal_get_data() finds a field by reading the entry's
 * items in turn, and it decompresses the start of every compressed item it passes, with a zstd context made for each
 * (systemd 252); a field the entry lacks passes them all. A record's 45 lookups in an entry with a few compressed
 * fields (the maps, the status, the stack trace) made a couple of hundred contexts: 0.7 ms an entry, 63-71% of
 * coresinkctl status in ZSTD_createDCtx (perf), 1.8 s for 2475 crashes. Enumerated once, each compressed field is
 * decompressed once.
 * What is read here is read at FIELDS_WHOLE: a field shorter than that is whole whatever the reader's threshold (a
 * field cut at a threshold is at least that long), and a longer one (a stack trace of hundreds of threads, the core
 * of Storage=journal) is kept by its name only, and asked of the journal again, at the reader's own threshold, as
 * before: a reader that needs a field whole (a seal's comparison: threshold 0) gets it whole, and no core in an
 * entry is copied here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "entryfields.h"

#define FIELDS_WHOLE (64u << 10)
/* What is kept of a field of FIELDS_WHOLE or more: its name (journald's are 64 bytes at most) and its '='. */
#define NAME_KEPT 128u

/* Appends one field: whole, or a long one's name only. 0 or -ENOMEM. */
static int keep(struct entry_fields *x, const void *data, size_t len)
{
	const size_t kept = len < FIELDS_WHOLE ? len : NAME_KEPT;

	if (x->n == x->fcap) {
		size_t cap = x->fcap ? x->fcap * 2 : 64;
		struct entry_field *f = reallocarray(x->f, cap, sizeof(*f));

		if (!f)
			return -ENOMEM;
		x->f = f;
		x->fcap = cap;
	}
	if (kept > x->cap - x->used) {
		size_t cap = x->cap ? x->cap : 16384;
		char *b;

		while (cap - x->used < kept)
			cap *= 2;
		b = realloc(x->buf, cap);
		if (!b)
			return -ENOMEM;
		x->buf = b;
		x->cap = cap;
	}
	memcpy(x->buf + x->used, data, kept);
	x->f[x->n++] = (struct entry_field) { x->used, len, kept };
	x->used += kept;
	return 0;
}

/* Reads the current entry of x->j (its fields, in their order), leaving j's threshold as it was. 0 or -errno. */
int entry_fields_load(struct entry_fields *x)
{
	size_t threshold = 0, len;
	const void *data;
	int r;

	x->used = x->n = 0;
	(void) sd_journal_get_data_threshold(x->j, &threshold);
	(void) sd_journal_set_data_threshold(x->j, FIELDS_WHOLE);
	sd_journal_restart_data(x->j);
	while ((r = sd_journal_enumerate_available_data(x->j, &data, &len)) > 0 && (r = keep(x, data, len)) == 0)
		;
	(void) sd_journal_set_data_threshold(x->j, threshold);
	return r < 0 ? r : 0;
}

/* The entry's first field NAME, or NULL. */
static const struct entry_field *find(const struct entry_fields *x, const char *name)
{
	size_t k = strlen(name);

	for (size_t i = 0; i < x->n; i++) {
		const char *p = x->buf + x->f[i].off;

		if (x->f[i].kept > k && p[k] == '=' && memcmp(p, name, k) == 0)
			return &x->f[i];
	}
	return NULL;
}

/*
 * origin_get_fn over the entry loaded (ctx: the entry_fields): its first field NAME, as sd_journal_get_data() gives
 * it, valid until the next load, or the next call for a field of FIELDS_WHOLE or more. 0 or -errno (-ENOENT: none).
 */
int entry_fields_get(void *ctx, const char *name, const void **data, size_t *len)
{
	const struct entry_fields *x = ctx;
	const struct entry_field *f = find(x, name);

	if (!f)
		return -ENOENT;
	if (f->len >= FIELDS_WHOLE)
		return sd_journal_get_data(x->j, name, data, len);
	*data = x->buf + f->off;
	*len = f->len;
	return 0;
}

/* Whether the entry has a field NAME, without reading it (the core in COREDUMP=, say). */
bool entry_fields_has(const struct entry_fields *x, const char *name)
{
	return find(x, name) != NULL;
}

void entry_fields_free(struct entry_fields *x)
{
	free(x->buf);
	free(x->f);
	*x = (struct entry_fields) { .j = x->j };
}
