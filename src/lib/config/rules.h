/*
 * rules.h: per-process rules, the [Rule] sections of the config and its drop-ins: what a rule matches on (the
 * crash's facts), how its Match lines are read, and which rule a crash gets. The keys a rule sets are config.c's.
 */
#ifndef CORESINK_RULES_H
#define CORESINK_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define RULE_NAME_MAX 64
#define RULE_MATCH_MAX 512     /* one Match line's value: a space-separated list */
#define RULE_SETTINGS_MAX 16   /* keys one rule sets */
#define RULE_VALUE_MAX 512     /* eight age recipients (Encrypt=) */
#define RULES_MAX 256

enum rule_match {
	MATCH_EXECUTABLE,   /* globs on the executable's path, as /proc/PID/exe names it */
	MATCH_COMM,         /* globs on %e, the name the process gave itself */
	MATCH_UNIT,         /* globs on the system unit (COREDUMP_UNIT) */
	MATCH_USER_UNIT,    /* globs on the unit inside a user's manager (COREDUMP_USER_UNIT) */
	MATCH_SLICE,        /* globs on the slice (COREDUMP_SLICE) */
	MATCH_USER,         /* user names or uids */
	MATCH_SIGNAL,       /* signal names (SEGV, SIGSEGV) or numbers */
	MATCH_CONTAINER,    /* yes, no, or globs on the machine name or the container id */
	MATCH_HOSTNAME,     /* globs on %h */
	MATCH_CONTAINER_NAME, /* globs on the container's name, as its runtime's files give it */
	MATCH_IMAGE,        /* globs on the container's image, as its runtime was asked for it */
	MATCH_POD_NAMESPACE, /* globs on the Kubernetes namespace of its pod */
	MATCH_POD_NAME,     /* globs on its pod's name */
	MATCH_POD_LABEL,    /* KEY=GLOB (or KEY: it has that label) on its pod's labels */
	MATCH_CONTAINER_LABEL, /* the same on the container's own labels */
	_MATCH_MAX
};

/* What a crash is matched on; NULL or "" where unknown, which no glob matches. */
struct rule_facts {
	const char *exe, *comm, *unit, *user_unit, *slice, *hostname;
	uid_t uid;
	int signal;             /* 0 when not known yet (socket mode, before the dump) */
	bool container;         /* in a container: another pid namespace, or a cgroup that names one */
	const char *machine, *container_id;
	const char *container_name, *image, *pod_name, *pod_namespace;   /* from its runtime's files */
	const char *pod_labels;  /* "KEY=VALUE" words one blank apart, from its runtime's files */
	const char *labels;      /* the container's own, likewise */
};

struct rule_setting {
	const void *key;        /* config.c's row for the key */
	char value[RULE_VALUE_MAX];
};

struct rule {
	char name[RULE_NAME_MAX];
	char where[96];         /* file:line of its section */
	char match[_MATCH_MAX][RULE_MATCH_MAX];   /* "" where not given */
	uint64_t signals;       /* MatchSignal= as a mask of signal numbers */
	struct rule_setting set[RULE_SETTINGS_MAX];
	unsigned n_set;
	bool bad;               /* a line of it could not be read: the rule is skipped whole */
};

int rule_match_key(const char *name);
const char *rule_match_name(enum rule_match m);
int rule_set_match(struct rule *r, enum rule_match m, const char *value);
bool rule_matches(const struct rule *r, const struct rule_facts *f);
int rules_pick(const struct rule *v, unsigned n, const struct rule_facts *f);
int rule_signal(const char *word);

#endif
