/* report.h: the one journal entry each crash gets, and the entry for configuration problems. */
#ifndef CORESINK_REPORT_H
#define CORESINK_REPORT_H

#include <limits.h>
#include <stdint.h>

#include "diag.h"
#include "engine.h"
#include "kargs.h"

#define CORESINK_MESSAGE_ID "fc2e22bc6ee647b6b90729ab34a250b1"

/* What became of one capture. */
struct outcome {
	const char *exe;            /* "" when unknown */
	char path[PATH_MAX + 256];  /* the stored file, "" when nothing was stored */
	struct engine_stats st;
	enum strategy strategy;
	int error;                  /* positive errno of the step that failed, 0 if none */
	const char *step;           /* what failed, for the message */
};

int report_crash(const struct kargs *k, const struct outcome *o);
int report_diag(const struct diag *d, const char *what);

#endif
