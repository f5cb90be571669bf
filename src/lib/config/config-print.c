/*
 * config-print.c: the effective configuration as a config file would say it (--check-config): every key of the
 * table in its order, through its printer (config.c), then each [Rule] as its section would say it (config-rule.c
 * read it).
 */
#include <stdio.h>

#include "config-internal.h"
#include "config.h"

/* Prints a rule as its section would say it; a skipped one commented out, with where it came from. */
static void print_rule(const struct rule *r, FILE *f)
{
	const char *pre = r->bad ? "# " : "";

	fprintf(f, "\n%s[Rule]\n# %s%s\n%sName=%s\n", pre, r->where, r->bad ? ": skipped, a line is bad" : "",
		pre, r->name);
	for (int m = 0; m < _MATCH_MAX; m++)
		if (r->match[m][0])
			fprintf(f, "%s%s=%s\n", pre, rule_match_name((enum rule_match)m), r->match[m]);
	for (unsigned i = 0; i < r->n_set; i++)
		fprintf(f, "%s%s=%s\n", pre, ((const struct key *)r->set[i].key)->name, r->set[i].value);
}

/* Prints the effective configuration as a config file would say it: every key of the table, in its order. */
void config_print(const struct config *c, FILE *f)
{
	const struct key *k;

	fprintf(f, "[Coresink]\n");
	for (size_t i = 0; (k = config_key_at(i)); i++) {
		fprintf(f, "%s=", k->name);
		k->print(f, (const char *)c + k->offset);
		fputc('\n', f);
	}
	if (c->keep_free.cap != UINT64_MAX)
		fprintf(f, "# KeepFree is the default, capped at %llu bytes\n", (unsigned long long)c->keep_free.cap);
	if (c->max_use.cap != UINT64_MAX)
		fprintf(f, "# MaxUse is the default, capped at %llu bytes\n", (unsigned long long)c->max_use.cap);
	for (unsigned i = 0; i < c->n_rules; i++)
		print_rule(&c->rules[i], f);
}
