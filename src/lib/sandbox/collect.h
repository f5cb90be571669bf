/*
 * collect.h: CollectDirectory=, the collect hooks: programs run while the crashed process is still held (its pid as
 * their first argument, its pidfd as fd 3 where the mode has one), whose KEY=VALUE lines become the entry's
 * CORESINK_HOOK_KEY fields.
 */
#ifndef CORESINK_COLLECT_H
#define CORESINK_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "parts.h"
#include "sandbox.h"

#define COLLECT_FIELD_PREFIX "CORESINK_HOOK_"
#define COLLECT_KEY_MAX 50          /* journald takes field names of 64 bytes: the prefix's 14 and these */
#define COLLECT_VALUE_MAX 1024      /* bytes of a value kept, before it is escaped */
#define COLLECT_FIELDS_MAX 64       /* fields of all hooks of a crash */
#define COLLECT_OUTPUT_MAX (32 * 1024) /* bytes of a hook's output read; past them it is killed (below a pipe's 64 KiB) */

struct collect {
	struct parts p;
	struct sandbox_child ch[PARTS_MAX];
	int started[PARTS_MAX];     /* 0, or -errno: it was not */
	char dir[PATH_MAX];
	bool running;               /* started, not yet waited for */
	/* What came of them, once waited for (collect_wait): */
	char *fields;               /* "KEY=VALUE\n" lines, each key once, each value escaped (one line) */
	unsigned n_fields;
	char said[2048];            /* what came of each, for CORESINK_COLLECT */
	bool failed;                /* one did not end well */
};

int collect_key(const char *line, size_t len, size_t *key_len);
int collect_list(struct collect *co, const char *dir, struct diag *d);
int collect_start(struct collect *co, const char *user, unsigned timeout_ms, pid_t pid, int pidfd);
void collect_wait(struct collect *co);
void collect_free(struct collect *co);

#endif
