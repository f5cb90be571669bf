/* summary.h: coresinkctl summary (the handler's --summary hands over to it): the crashes grouped by signature. */
#ifndef CORESINK_SUMMARY_H
#define CORESINK_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

int summary_main(const char *directory, const char *since, bool json);
int summary_of(origin_get_fn fn, void *const *ctxs, const uint64_t *usec, size_t n, FILE *f, bool json);

#endif
