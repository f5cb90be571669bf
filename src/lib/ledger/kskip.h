/* kskip.h: the crashes the kernel dropped over kernel.core_pipe_limit, from its log. */
#ifndef CORESINK_KSKIP_H
#define CORESINK_KSKIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One record of the kernel log, as far as it concerns dropped crashes. */
enum kskip_kind {
	KSKIP_OTHER,          /* anything else */
	KSKIP_DROPPED,        /* a crash dropped over core_pipe_limit: pid, comm */
	KSKIP_HELD_BACK,      /* "coredump_pipe: N callbacks suppressed": N such lines the kernel rate-limited away */
};

struct kskip_record {
	uint64_t seq;
	uint64_t usec;        /* when it was logged, microseconds since boot (CLOCK_MONOTONIC's clock) */
	int pid;
	char comm[32];
	unsigned held_back;
};

struct kskip {
	unsigned count;       /* crashes dropped, named in the log */
	unsigned held_back;   /* lines about crashes the pipe could not take, rate-limited away: unnamed drops */
	char list[1024];      /* "PID (COMM), ..." as the kernel logged them, as many as fit */
	bool listed_all;      /* the list names every one of them */
	bool lost_records;    /* the log wrapped past some of the records wanted: there may have been more */
	uint64_t last;        /* the sequence number of the last record read */
};

int kskip_parse(const char *rec, size_t n, struct kskip_record *r);
int kskip_scan(uint64_t after, uint64_t since_usec, struct kskip *ks);
long kskip_pipe_limit(void);

#endif
