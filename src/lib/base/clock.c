/*
 * clock.c: the monotonic clock, which no change of the wall clock moves, in nanoseconds, microseconds and
 * milliseconds: the one place deadlines and durations read it from (the trace's and the fetch step's times, the
 * sandbox's deadline, the socket server's, the I/O bounded in time); and the wall clock, in microseconds since the
 * epoch, for what is dated (--since, the kernel log's look, a follow's start).
 */
#include <time.h>

#include "clock.h"

uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

uint64_t clock_us(void)
{
	return clock_ns() / 1000;
}

uint64_t clock_realtime_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t clock_ms(void)
{
	return clock_us() / 1000;
}
