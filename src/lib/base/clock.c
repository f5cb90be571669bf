/*
 * clock.c: the monotonic clock, which no change of the wall clock moves, in microseconds and milliseconds: the one
 * place deadlines and durations read it from (the trace's and the fetch step's times, the sandbox's deadline, the
 * socket server's).
 */
#include <time.h>

#include "clock.h"

uint64_t clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t clock_ms(void)
{
	return clock_us() / 1000;
}
