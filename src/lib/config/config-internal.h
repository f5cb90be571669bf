/*
 * config-internal.h: what the files of the configuration share and nothing else includes: the key table's row
 * (config.c), looked up by the file reader (config-file.c) and the [Rule] parser (config-rule.c), walked by the
 * printer (config-print.c).
 */
#ifndef CORESINK_CONFIG_INTERNAL_H
#define CORESINK_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base.h"
#include "config.h"

typedef int (*parser_fn)(const char *value, void *field);
typedef void (*printer_fn)(FILE *f, const void *field);

struct key {
	const char *name;
	parser_fn parse;
	printer_fn print;
	size_t offset;
	bool per_crash;    /* a [Rule] may set it: it decides about one crash, not about the machine's disk */
	bool closed;       /* a bad value is kept as bad (the parser marks it) and fails closed, not the default */
};

const struct key *config_key_at(size_t i);
const struct key *config_key_find(const char *name);
int config_rule_begin(struct config *c, const char *file, unsigned line, struct diag *d);
int config_rule_key_line(struct config *c, const char *file, unsigned line, const char *name, const char *val,
			 struct diag *d);

#endif
