/* clock.h: the monotonic clock, in the units the code counts in, and the wall clock for what is dated. */
#ifndef CORESINK_CLOCK_H
#define CORESINK_CLOCK_H

#include <stdint.h>

uint64_t clock_us(void);
uint64_t clock_ms(void);
uint64_t clock_ns(void);
uint64_t clock_realtime_us(void);

#endif
