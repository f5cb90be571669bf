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

int diag_count(const struct diag *d)
{
	return d->n + d->dropped;
}
