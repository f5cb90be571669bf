/*
 * follow.c: coresinkctl list --follow: the crashes as list shows them, then each new one as its entry comes, until
 * interrupted. A new crash is read back through the same reader as list (entries.c): coresink's own entries only,
 * a user's crash once root's seal is in the journal too, a forged one never, and for a user their own. The journal
 * is watched (sd_journal_wait) and read again over a window that starts a minute before the newest crash shown: a
 * user's entry waits there for its seal, and each crash is shown once, by its entry id.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-journal.h>

#include "follow.h"

#define WINDOW_USEC (60ULL * 1000000)
#define WAIT_USEC 250000

/* The crashes shown within the window, by entry id (the cursor for an entry without one). */
struct shown {
	struct seen { char *key; uint64_t usec; } *s;
	size_t n, cap;
};

static const char *key_of(const struct record *c)
{
	return c->entry_id && c->entry_id[0] ? c->entry_id : c->cursor ? c->cursor : "";
}

static bool was_shown(const struct shown *sh, const char *key)
{
	for (size_t i = 0; i < sh->n; i++)
		if (strcmp(sh->s[i].key, key) == 0)
			return true;
	return false;
}

static int remember(struct shown *sh, const struct record *c)
{
	if (sh->n == sh->cap) {
		size_t want = sh->cap ? sh->cap * 2 : 64;
		struct seen *p = reallocarray(sh->s, want, sizeof(*p));

		if (!p)
			return -ENOMEM;
		sh->s = p;
		sh->cap = want;
	}
	sh->s[sh->n].key = strdup(key_of(c));
	if (!sh->s[sh->n].key)
		return -ENOMEM;
	sh->s[sh->n++].usec = c->usec;
	return 0;
}

/* Forgets what is older than since: the window will not read it again. */
static void forget(struct shown *sh, uint64_t since)
{
	size_t k = 0;

	for (size_t i = 0; i < sh->n; i++) {
		if (sh->s[i].usec < since)
			free(sh->s[i].key);
		else
			sh->s[k++] = sh->s[i];
	}
	sh->n = k;
}

static void shown_free(struct shown *sh)
{
	forget(sh, UINT64_MAX);
	free(sh->s);
}

/*
 * Shows the crashes of f, one a line (a row, or an object with json), those shown before only where all; each is
 * remembered, and the newest one's time kept in *newest. With dirfd -2, nothing is printed: they are taken as seen.
 */
static int show_new(const struct found *f, struct shown *sh, int dirfd, enum json_mode json, bool all,
		    uint64_t *newest)
{
	int r = 0;

	for (size_t i = 0; i < f->n && r == 0; i++) {
		struct record *c = &f->c[i];
		const struct found one = { .c = c, .n = 1 };
		bool seen = was_shown(sh, key_of(c));

		if (seen && !all)
			continue;
		if (dirfd == -2) {
			/* Taken as seen. */
		} else if (json != JSON_OFF) {
			show_record_json(stdout, c, dirfd, json == JSON_PRETTY);
			putchar('\n');
		} else {
			show_list(stdout, &one, dirfd, NULL, false, JSON_OFF);
		}
		if (c->usec > *newest)
			*newest = c->usec;
		if (!seen)
			r = remember(sh, c);
	}
	return fflush(stdout) == 0 ? r : -EIO;
}

/*
 * list --follow over the selection sel (its -n and -r apply to what is shown first), the cores' state read in dirfd:
 * the legend (text, with legend), the crashes there are, then each new one. Returns only on an error: -errno.
 */
int follow_list(const struct selection *sel, int dirfd, bool legend, enum json_mode json)
{
	struct selection w = *sel;
	struct shown sh = { 0 };
	struct found f;
	uint64_t newest = clock_realtime_us();
	sd_journal *j = NULL;
	int r = entries_open(sel, (void **)&j);

	if (r >= 0)
		r = sd_journal_seek_tail(j);
	if (r >= 0)
		(void) sd_journal_previous(j);
	/* From here every crash of the window, oldest first, whatever -n and -r ask of the first ones. */
	w.newest = 0;
	w.reverse = false;
	w.until = 0;
	w.since = newest - WINDOW_USEC;
	if (sel->since > w.since)
		w.since = sel->since;
	/* What the window holds now is not new, though -n leaves some of it out of the first lines. */
	if (r >= 0 && (r = entries_find(&w, &f)) >= 0) {
		r = show_new(&f, &sh, -2, json, false, &newest);
		entries_free(&f);
	}
	if (r >= 0 && legend && json == JSON_OFF)
		printf("%-31s %7s %5s %5s %-8s %-12s %-28s %s\n", "TIME", "PID", "UID", "GID", "SIG", "COREFILE", "EXE",
		       "SIZE");
	if (r >= 0 && (r = entries_find(sel, &f)) >= 0) {
		r = show_new(&f, &sh, dirfd, json, true, &newest);
		entries_free(&f);
	}
	while (r >= 0) {
		/* Woken by journald's writes, and four times a second anyway: a seal may come with no change seen. */
		r = sd_journal_wait(j, WAIT_USEC);
		if (r < 0)
			break;
		w.since = newest > WINDOW_USEC ? newest - WINDOW_USEC : 0;
		if (sel->since > w.since)
			w.since = sel->since;
		forget(&sh, w.since);
		r = entries_find(&w, &f);
		if (r < 0)
			break;
		r = show_new(&f, &sh, dirfd, json, false, &newest);
		entries_free(&f);
	}
	if (j)
		sd_journal_close(j);
	shown_free(&sh);
	return r;
}
