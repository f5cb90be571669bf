/*
 * cleanup.c: coresinkctl remove and vacuum. The cores go the way the handler's own vacuum removes them, under the
 * ledger's lock (session_remove(): truncated, then unlinked, never one a capture still holds, and the ledger's count
 * of stored bytes set right after), so that MaxUse is exact for the next crash. A core being written has no name yet
 * and cannot be chosen. Each removal is journaled with what went and why, as root (CORESINK_REMOVED_MESSAGE_ID).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "cleanup.h"
#include "ledger.h"
#include "tidy.h"
#include "report.h"

/* The entry of a core an admin removed. */
#define CORESINK_REMOVED_MESSAGE_ID "7b1bd7b3a7a2497e9b1cb8b3c3c0f1d2"

/* Journals one removal: the core, its crash where known, who asked and why. */
static void journal_removal(const char *name, const char *exe, const char *why, bool unsent)
{
	struct fields f;

	fields_init(&f, 5);
	fields_add(&f, "MESSAGE_ID=" CORESINK_REMOVED_MESSAGE_ID);
	fields_add(&f, "MESSAGE=Core %s removed by uid %u (%s)%s.", name, (unsigned)getuid(), why,
		   unsent ? "; ExecUpload= had not sent it yet" : "");
	fields_add(&f, "CORESINK_REMOVED=%s", name);
	fields_add(&f, "CORESINK_REMOVED_WHY=%s", why);
	if (exe && exe[0])
		fields_add(&f, "COREDUMP_EXE=%s", exe);
	(void) journal_send(&f);
	fields_free(&f);
}

/* Removes the n cores named (with their executables, for what is said), or says what would go. 0 or 1 (some not). */
static int remove_names(int dirfd, char **names, char **exes, size_t n, const char *why, bool dry_run)
{
	int *result = calloc(n ? n : 1, sizeof(*result)), bad = 0, r;
	bool *unsent = calloc(n ? n : 1, sizeof(*unsent));
	uint64_t freed = 0;

	if (!result || !unsent) {
		free(result), free(unsent);
		return fail_code(EXIT_SYSTEM, "out of memory");
	}
	if (dry_run) {
		for (size_t i = 0; i < n; i++)
			printf("would remove %s\n", names[i]);
		free(result), free(unsent);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		result[i] = -EAGAIN;
	r = session_remove(dirfd, names, n, result, unsent, &freed);
	if (r < 0)
		fprintf(stderr, "coresinkctl: the ledger: %s: nothing removed\n", strerror(-r));
	for (size_t i = 0; r == 0 && i < n; i++) {
		if (result[i] == 0) {
			printf("removed %s\n", names[i]);
			journal_removal(names[i], exes ? exes[i] : NULL, why, unsent[i]);
		} else {
			bad = 1;
			fprintf(stderr, "coresinkctl: %s: not removed: %s\n", names[i],
				result[i] == -EBUSY ? "its capture still reads it" : strerror(-result[i]));
		}
	}
	if (r == 0)
		printf("%" PRIu64 " bytes freed\n", freed);
	free(result), free(unsent);
	return r < 0 ? EXIT_SYSTEM : bad;
}

/* remove: the cores of the crashes found, each checked to be that crash's (corefile_find()). */
int cleanup_remove(int dirfd, const struct found *found, const char *why, bool dry_run)
{
	char **names = calloc(found->n + 1, sizeof(*names)), **exes = calloc(found->n + 1, sizeof(*exes));
	char name[NAME_MAX_LEN];
	size_t n = 0;
	int r, skipped = 0;

	if (!names || !exes) {
		free(names), free(exes);
		return fail_code(EXIT_SYSTEM, "out of memory");
	}
	for (size_t i = 0; i < found->n; i++) {
		const struct record *c = &found->c[i];

		if (c->journal_core || corefile_find(dirfd, c, name, sizeof(name)) < 0) {
			skipped++;
			continue;
		}
		names[n] = strdup(name);
		exes[n] = c->exe;
		if (names[n])
			n++;
	}
	if (skipped)
		fprintf(stderr, "coresinkctl: %d crash(es) without a core of theirs in the directory: nothing to remove\n",
			skipped);
	r = n ? remove_names(dirfd, names, exes, n, why, dry_run) : 1;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names), free(exes);
	return r;
}

/* The executable a core's attributes name (user.coredump.exe), into buf; "" where it has none. */
static void exe_of(int dirfd, const char *name, char *buf, size_t len)
{
	char path[64 + OLDEST_NAME_MAX];
	ssize_t n;

	(void) snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	n = lgetxattr(path, "user.coredump.exe", buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * vacuum: the cores of the directory that v selects: older than older_than, of exe; then, with max_use, the oldest
 * of those until what all the cores take is at most max_use.
 */
int cleanup_vacuum(int dirfd, const struct vacuum_spec *v, const char *why, bool dry_run)
{
	struct vacuum_core *list;
	int n = vacuum_list(dirfd, &list), r;
	uint64_t total = 0, now = (uint64_t)time(NULL);
	char **names = NULL, exe[4096];
	size_t k = 0;

	if (n < 0)
		return fail_code(EXIT_SYSTEM, "the core directory: %s", strerror(-n));
	names = calloc((size_t)n + 1, sizeof(*names));
	for (int i = 0; i < n; i++)
		total += list[i].o.bytes;
	for (int i = 0; names && i < n; i++) {
		const int64_t mtime = (int64_t)list[i].o.mtime.tv_sec;
		bool old = v->older_than && mtime >= 0 && (uint64_t)mtime <= now && now - (uint64_t)mtime >= v->older_than;

		/* A clock that ran ahead when it was written: the core is taken as new, never as the oldest. */
		if (v->older_than && mtime > 0 && (uint64_t)mtime > now)
			fprintf(stderr, "coresinkctl: %s was written %" PRIu64 " s in the future (a clock that ran ahead): "
				"taken as new\n", list[i].o.name, (uint64_t)mtime - now);

		if (v->exe && (exe_of(dirfd, list[i].o.name, exe, sizeof(exe)), strcmp(exe, v->exe) != 0))
			continue;
		if (!old && !(v->have_max_use && total > v->max_use) && !(!v->older_than && !v->have_max_use))
			continue;
		names[k++] = list[i].o.name;
		total -= list[i].o.bytes;
	}
	r = names ? (k ? remove_names(dirfd, names, NULL, k, why, dry_run) : (printf("nothing to remove\n"), 0))
		  : EXIT_SYSTEM;
	free(names);
	free(list);
	return r;
}
