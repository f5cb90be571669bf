/*
 * config-rule.c: the [Rule] sections of the configuration: a rule's Name=, its Match lines (rules.c) and the
 * per-crash keys it sets, each value checked as it is read so that a rule never holds a bad one. A rule with a bad
 * line is skipped whole: half a rule could match, or set, what its author never meant.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "config-internal.h"
#include "config.h"
#include "rules.h"

/* A rule's name: letters, digits and "-_.@:", as a unit name's; it goes into CORESINK_RULE= and the output. */
static bool rule_name_ok(const char *v)
{
	size_t n = strlen(v);

	return n > 0 && n < RULE_NAME_MAX && strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						    "0123456789-_.@:") == n;
}

/* Starts a [Rule] section of file at line: a rule named after where it is until Name= says otherwise. */
int config_rule_begin(struct config *c, const char *file, unsigned line, struct diag *d)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	struct rule *v, *r;

	if (c->n_rules >= RULES_MAX) {
		diag_add(d, "%s:%u: more than %d rules, this one and the rest are ignored", file, line, RULES_MAX);
		return -E2BIG;
	}
	v = realloc(c->rules, (c->n_rules + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->rules = v;
	r = &v[c->n_rules++];
	memset(r, 0, sizeof(*r));
	(void) snprintf(r->name, sizeof(r->name), "%.40s:%u", base, line);
	(void) snprintf(r->where, sizeof(r->where), "%.80s:%u", file, line);
	return 0;
}

/* The value a per-crash key would take, checked now (on a scratch config) so that a rule never holds a bad one. */
static int rule_setting(struct rule *r, const struct key *k, const char *val)
{
	struct config scratch;
	bool bad;

	if (!k->per_crash)
		return -EPERM;
	if (strlen(val) >= RULE_VALUE_MAX)
		return -ENAMETOOLONG;
	config_defaults(&scratch);
	bad = k->parse(val, (char *)&scratch + k->offset) < 0;
	if (bad && !k->closed)
		return -EINVAL;
	for (unsigned i = 0; i < r->n_set; i++)
		if (r->set[i].key == k)
			return -EEXIST;
	if (r->n_set >= RULE_SETTINGS_MAX)
		return -E2BIG;
	r->set[r->n_set].key = k;
	strcpy(r->set[r->n_set++].value, val);
	/* Kept bad: the rule applies it, and its crashes fail closed (no core stored). */
	return bad ? -EKEYREJECTED : 0;
}

/* One Key=Value line of a [Rule]: Name=, a Match line, or a per-crash key. 0 or -errno (the rule is then bad). */
static int rule_line(struct rule *r, const char *name, const char *val)
{
	int m = rule_match_key(name);
	const struct key *k;

	if (strcmp(name, "Name") == 0) {
		if (!rule_name_ok(val))
			return -EINVAL;
		strcpy(r->name, val);
		return 0;
	}
	if (m >= 0)
		return rule_set_match(r, (enum rule_match)m, val);
	k = config_key_find(name);
	return k ? rule_setting(r, k, val) : -ENOENT;
}

static const char *rule_problem(int r)
{
	switch (r) {
	case -ENOENT: return "unknown key";
	case -EPERM: return "not a per-crash key (it holds for the whole machine)";
	case -EEXIST: return "given twice";
	case -E2BIG: return "too many keys";
	case -ENAMETOOLONG: return "value too long";
	default: return "bad value";
	}
}

/* A Key=Value line of the current [Rule]; a bad one makes the whole rule be skipped. */
int config_rule_key_line(struct config *c, const char *file, unsigned line, const char *name, const char *val,
			 struct diag *d)
{
	struct rule *r = &c->rules[c->n_rules - 1];
	int e = rule_line(r, name, val);

	if (e == 0)
		return 0;
	if (e == -EKEYREJECTED) {
		diag_add(d, "%s:%u: %.64s: bad value in rule %s: no core is stored for the crashes it matches", file,
			 line, name, r->name);
		return -EINVAL;
	}
	diag_add(d, "%s:%u: %.64s: %s in rule %s, the rule is skipped", file, line, name, rule_problem(e), r->name);
	r->bad = true;
	return -EINVAL;
}

/* Sets the keys rule r sets, over c. Their values were checked when the rule was read. */
void config_apply_rule(struct config *c, const struct rule *r)
{
	for (unsigned i = 0; i < r->n_set; i++) {
		const struct key *k = r->set[i].key;

		(void) k->parse(r->set[i].value, (char *)c + k->offset);
	}
}
