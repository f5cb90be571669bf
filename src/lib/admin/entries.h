/* entries.h: the crashes coresinkctl shows, read from the journal: matched, coresink's own, and the user's to see. */
#ifndef CORESINK_ADMIN_ENTRIES_H
#define CORESINK_ADMIN_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"

/* One crash entry: the fields the verbs show, as strings ("" where the entry has none). */
struct record {
	uint64_t usec;            /* when journald wrote it */
	pid_t pid;
	uid_t uid;
	gid_t gid;
	int sig;
	bool journal_core;        /* the core is in the entry itself (COREDUMP=, Storage=journal) */
	char *cursor;
	char *exe, *comm, *cmdline, *cgroup, *unit, *user_unit, *slice, *owner_uid, *hostname, *boot_id, *machine_id;
	char *filename, *timestamp, *message, *result, *entry_id, *signature, *truncated, *size;
	char *package_name, *package_version;
	char *runtime, *container_id, *container_name, *image, *pod_name, *pod_namespace, *pod_labels, *labels;
	char *collect;            /* CORESINK_COLLECT: what came of the collect hooks */
	char *hooks;              /* their fields, "KEY=VALUE\n" each, in CORESINK_HOOKS's order */
};

/* Which entries: journalctl's sources and bounds, coredumpctl's matches. */
struct selection {
	const char *directory;    /* -D: a directory of journal files; NULL the local journal */
	const char **files;       /* --file: journal files; NULL-terminated, or NULL */
	uint64_t since, until;    /* microseconds since the epoch; 0 for no bound */
	bool reverse;
	long newest;              /* only the newest N (-n, -1); 0 all */
	char *const *matches;     /* PID, COMM, /EXE or FIELD=VALUE */
	int n_matches;
	const struct age_identities *identities;  /* --identity: what reads an encrypted core; NULL for none */
};

struct found {
	struct record *c;
	size_t n;
	unsigned foreign;         /* with coresink's MESSAGE_ID, but not written by coresink (origin.c) */
	unsigned hidden;          /* other users' crashes, not shown to a user who is not root */
};

int record_read(struct record *c, origin_get_fn fn, void *ctx);
void record_free(struct record *c);
/* One entry coresink wrote, as entries_walk() hands it on: its fields (fn on ctx), when journald wrote it, and which
 * of the MESSAGE_IDs asked for it has (their index). */
struct entry_at {
	origin_get_fn fn;
	void *ctx;
	uint64_t usec;
	unsigned id;
};
typedef int (*entry_fn)(void *data, const struct entry_at *e);

int entries_walk(const struct selection *s, const char *const *ids, size_t threshold, entry_fn each, void *data,
		 unsigned *foreign);
int entries_find(const struct selection *s, struct found *f);
void entries_free(struct found *f);
int entries_open(const struct selection *s, void **journal);
int entries_match(const char *m, char *field, size_t len);
int entries_parse_time(const char *s, uint64_t now_usec, uint64_t *usec);

#endif
