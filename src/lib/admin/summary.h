/* summary.h: coresink --summary, the journal's crashes grouped by signature (summary.c). */
#ifndef CORESINK_SUMMARY_H
#define CORESINK_SUMMARY_H

#include <stdbool.h>

int summary_main(const char *directory, const char *since, bool json);

#endif
