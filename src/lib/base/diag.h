/* diag.h: a bounded list of problems found while reading input, for the top level to log or print. */
#ifndef CORESINK_DIAG_H
#define CORESINK_DIAG_H

#include <stdio.h>

#define DIAG_MAX 16
#define DIAG_LEN 256

struct diag {
	int n;          /* messages kept */
	int dropped;    /* messages beyond DIAG_MAX */
	char msg[DIAG_MAX][DIAG_LEN];
};

void diag_add(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int diag_count(const struct diag *d);
void diag_print(const struct diag *d, FILE *f, const char *prefix);
void diag_print_as(const struct diag *d, FILE *f);
const char *diag_program_name(void);
void diag_program(const char *name);
int fail_code(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
