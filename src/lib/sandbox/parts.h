/*
 * parts.h: the programs of a run-parts(8) directory (NotifyDirectory=, CollectDirectory=): root's, run by their
 * names' order.
 */
#ifndef CORESINK_PARTS_H
#define CORESINK_PARTS_H

#include <limits.h>

#include "base.h"

#define PARTS_MAX 32

struct parts {
	char name[PARTS_MAX][NAME_MAX + 1];
	unsigned n;
};

int parts_list(const char *dir, struct parts *p, struct diag *d);

#endif
