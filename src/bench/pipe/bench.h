/* bench.h: coresink-bench's variants and samples, shared by the runner and the table. */
#ifndef CORESINK_BENCH_H
#define CORESINK_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "write.h"

#define VARIANTS_MAX 16

struct variant {
	char name[64];
	bool null_sink;           /* the engine into /dev/null: the ceiling of the run */
	bool flush;               /* the disk's cache emptied behind the writeback (the handler's FlushBehind=) */
	struct engine_opts o;
};

struct sample {
	int variant, run;
	uint64_t bytes;
	double seconds, cpu;      /* wall, and the consumer's user + system time */
	unsigned long calls;      /* data-moving syscalls of the consumer */
	uint64_t cache;           /* peak growth of Cached during the run */
	uint64_t blocks;          /* bytes allocated to the output */
	bool verified;
};

void bench_table(FILE *f, const struct variant *v, int nv, const struct sample *s, int ns);
int bench_csv(const char *path, const struct variant *v, const struct sample *s, int ns);
int bench_plot(const char *path, const struct variant *v, int nv, const struct sample *s, int ns);

int pipe_main(int argc, char **argv);

#endif
