/*
 * sigstore.c: what this machine has seen of each crash signature (signature.c): how many crashes, since when, and
 * how many of their cores are kept in the current window (MaxCoresPerSignature=, SignatureIntervalSec=). Two
 * signatures of the same keys are one bug seen with more or less debug info (signature.c): one line counts both,
 * under the signature seen last. Text, one signature a line, "sig HEX COUNT FIRST LAST KEPT WINDOW [KEYS]" (no KEYS
 * before version 2), then "end", rewritten whole under flock() of the file
 * itself, a state file as the ledger is (statefile.c): no user can forge the counts, nor hold the lock. A line that
 * does not parse is dropped: a damaged file costs counts, never a core.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "analyse.h"
#include "sigstore.h"
#include "store.h"

#define LINE_MAX_BYTES 160

struct sig_line {
	char hex[SIGNATURE_HEX + 1], keys[SIGNATURE_HEX + 1];
	uint64_t count, first, last, window;
	uint32_t kept;
};

struct sig_table {
	struct sig_line *l;
	size_t n;
};

static void parse(struct sig_table *t, char *text)
{
	for (char *line = strtok(text, "\n"); line && t->n < SIGSTORE_MAX; line = strtok(NULL, "\n")) {
		struct sig_line s = { .keys = "" };
		int n;

		if (strcmp(line, "end") == 0)
			break;
		n = sscanf(line, "sig %16[0-9a-f] %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu32 " %" SCNu64 " %16[0-9a-f]",
			   s.hex, &s.count, &s.first, &s.last, &s.kept, &s.window, s.keys);
		if (n >= 6 && strlen(s.hex) == SIGNATURE_HEX && (n == 6 || strlen(s.keys) == SIGNATURE_HEX))
			t->l[t->n++] = s;
	}
}

/*
 * The line of hex, or of its keys (the same bug with more or less debug info: it takes hex and keys, and *joined
 * the signature it had), made (in the place of the one seen longest ago, when the table is full) where missing.
 */
static struct sig_line *line_of(struct sig_table *t, const char *hex, const char *keys, uint64_t now, char *joined)
{
	struct sig_line *l = NULL;
	size_t stalest = 0;

	for (size_t i = 0; i < t->n && !l; i++)
		if (strcmp(t->l[i].hex, hex) == 0)
			l = &t->l[i];
	for (size_t i = 0; i < t->n && !l && keys[0]; i++)
		if (strcmp(t->l[i].keys, keys) == 0) {
			l = &t->l[i];
			(void) snprintf(joined, SIGNATURE_HEX + 1, "%s", l->hex);
		}
	if (!l) {
		for (size_t i = 0; i < t->n; i++)
			if (t->l[i].last < t->l[stalest].last)
				stalest = i;
		if (t->n < SIGSTORE_MAX)
			stalest = t->n++;
		l = &t->l[stalest];
		*l = (struct sig_line) { .first = now, .window = now };
	}
	(void) snprintf(l->hex, sizeof(l->hex), "%s", hex);
	/* A build without keys keeps the ones seen: its next crash with debug info joins them. */
	if (keys[0])
		(void) snprintf(l->keys, sizeof(l->keys), "%s", keys);
	return l;
}

/* Counts this crash in s, and decides whether its core is kept: the first max_cores of a window of interval s. */
static void count(struct sig_line *s, uint64_t now, bool stored, uint64_t max_cores, uint64_t interval,
		  struct sig_seen *seen)
{
	bool keep;

	s->count++;
	s->last = now;
	if (now >= s->window + interval || now < s->window) {
		s->window = now;
		s->kept = 0;
	}
	keep = !(stored && max_cores > 0 && s->kept >= max_cores);
	if (stored && keep)
		s->kept++;
	seen->count = s->count;
	seen->first = s->first;
	seen->kept = s->kept;
	seen->window = s->window;
	seen->keep = keep;
}

static int save(int fd, const struct sig_table *t)
{
	size_t len = t->n * LINE_MAX_BYTES + 8, n = 0;
	char *text = malloc(len);
	int r;

	if (!text)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		n += (size_t)snprintf(text + n, len - n, "sig %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu64
				      "%s%s\n", t->l[i].hex, t->l[i].count, t->l[i].first, t->l[i].last, t->l[i].kept,
				      t->l[i].window, t->l[i].keys[0] ? " " : "", t->l[i].keys);
	n += (size_t)snprintf(text + n, len - n, "end\n");
	r = statefile_rewrite(fd, text, n);
	free(text);
	return r;
}

/*
 * Counts a crash of signature hex (its keys: "" for none) at now in the directory's store, stored telling whether
 * its core was kept so far: into *seen, how often and since when it was seen, and whether that core is to stay
 * (the first max_cores of each interval seconds; 0: all). 0 or -errno (then *seen says this one is new and its core stays).
 */
int sigstore_note(int dirfd, const char *hex, const char *keys, uint64_t now, bool stored, uint64_t max_cores,
		  uint64_t interval, struct sig_seen *seen)
{
	struct sig_table t = { .n = 0 };
	char *text = NULL;
	ssize_t n;
	_cleanup_close_ int fd = -1;
	int r;

	*seen = (struct sig_seen) { .count = 1, .first = now, .keep = true };
	fd = statefile_open(dirfd, SIGSTORE_FILE);
	if (fd < 0)
		return fd;
	t.l = calloc(SIGSTORE_MAX, sizeof(*t.l));
	text = malloc((size_t)SIGSTORE_MAX * LINE_MAX_BYTES + 1);
	r = t.l && text ? 0 : -ENOMEM;
	if (r == 0 && flock(fd, LOCK_EX) < 0)
		r = -errno;
	if (r == 0) {
		n = io_read_full(fd, text, (size_t)SIGSTORE_MAX * LINE_MAX_BYTES, NULL);
		r = n < 0 ? (int)n : 0;
		if (r == 0) {
			text[n] = '\0';
			parse(&t, text);
			count(line_of(&t, hex, keys, now, seen->joined), now, stored, max_cores, interval, seen);
			r = save(fd, &t);
		}
		(void) flock(fd, LOCK_UN);
	}
	free(text);
	free(t.l);
	return r;
}
