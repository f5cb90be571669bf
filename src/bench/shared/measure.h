/* measure.h: what both modes of coresink-bench measure with: clocks, the page cache, a clean start. */
#ifndef CORESINK_BENCH_MEASURE_H
#define CORESINK_BENCH_MEASURE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Samples Cached every 5 ms while a run goes on: its peak over the start is the run's page-cache footprint. */
struct sampler {
	pthread_t thread;
	atomic_bool stop;
	uint64_t start, peak;
};

double now(clockid_t clock);
double cpu_seconds(void);
uint64_t cached_bytes(void);
int sampler_start(struct sampler *s);
uint64_t sampler_stop(struct sampler *s);
void drop_caches(void);
uint64_t device_written(const char *path);

#endif
