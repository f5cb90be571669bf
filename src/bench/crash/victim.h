/* victim.h: the process coresink-bench --crash crashes: a workload of memory, then SIGSEGV on a signal from us. */
#ifndef CORESINK_BENCH_VICTIM_H
#define CORESINK_BENCH_VICTIM_H

#include <stdint.h>
#include <sys/types.h>

enum workload { WORKLOAD_DENSE, WORKLOAD_CORE, WORKLOAD_THREADS, WORKLOAD_SPARSE, _WORKLOAD_MAX };

const char *workload_to_string(enum workload w);
int workload_from_string(const char *s);
unsigned workload_zero_percent(enum workload w);

/* A forked victim, ready to crash: its pid, where its pattern lies, and the two ends we talk to it through. */
struct victim {
	pid_t pid;
	uint64_t addr, bytes;
	unsigned zero_percent;
	double on_cpu, runq;  /* from "go" to its end: seconds on a CPU, and runnable waiting for one; -1 unknown */
	int go, report;       /* we write "go" into one; it tells its mapping, then its crash time, through the other */
};

int victim_start(struct victim *v, enum workload w, uint64_t bytes);
int victim_crash(struct victim *v, double *crashed_at);
int victim_reap(struct victim *v);
void victim_held(const struct victim *v, double released, double *held, double *runq);

#endif
