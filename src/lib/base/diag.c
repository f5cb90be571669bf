/* diag.c: a bounded list of problems found while reading input, for the top level to log or print. */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

void diag_add(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	if (d->n >= DIAG_MAX) {
		d->dropped++;
		return;
	}
	va_start(ap, fmt);
	(void) vsnprintf(d->msg[d->n++], DIAG_LEN, fmt, ap);
	va_end(ap);
}

/* Prints every problem to f, a line each behind prefix, and how many more were dropped. */
void diag_print(const struct diag *d, FILE *f, const char *prefix)
{
	for (int i = 0; i < d->n; i++)
		fprintf(f, "%s%s\n", prefix, d->msg[i]);
	if (d->dropped)
		fprintf(f, "%s... and %d more\n", prefix, d->dropped);
}

int diag_count(const struct diag *d)
{
	return d->n + d->dropped;
}

/* The program's name, for what it says (fail_code()); main sets it first. */
static const char *program = "coresink";

void diag_program(const char *name)
{
	program = name;
}

const char *diag_program_name(void)
{
	return program;
}

/* diag_print() as the running program says it (its name, a colon, the problem): shared code names no program of its own. */
void diag_print_as(const struct diag *d, FILE *f)
{
	char prefix[64];

	(void) snprintf(prefix, sizeof(prefix), "%s: ", program);
	diag_print(d, f, prefix);
}

/*
 * Says "PROGRAM: what" on standard error and returns code, so that a program's verb ends in one line:
 * return fail_code(EXIT_USAGE, "-n takes a number above 0");
 */
int fail_code(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}
