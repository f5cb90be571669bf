/* corecheck.h: does a stored core hold everything its victim's memory held? */
#ifndef CORESINK_BENCH_CORECHECK_H
#define CORESINK_BENCH_CORECHECK_H

#include "victim.h"

int corecheck_stream(int fd, const struct victim *v);

#endif
