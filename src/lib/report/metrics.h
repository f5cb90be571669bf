/*
 * metrics.h: the counters of what came of the crashes (metrics.c), kept in the core directory, and their Prometheus
 * text exposition (promfile.c), printed by coresinkctl metrics and rewritten whole into MetricsFile= after each crash.
 */
#ifndef CORESINK_METRICS_H
#define CORESINK_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "outcome.h"

#define METRICS_STATE ".coresink.metrics"

/* Why a crash's core was not stored whole: a fixed set, the reason label (docs/metrics.md). */
enum metrics_reason {
	REASON_NONE,
	REASON_MAX_CORE_SIZE,
	REASON_MAX_USE,
	REASON_KEEP_FREE,
	REASON_DISK_FULL,
	REASON_RLIMIT,
	REASON_CUT_SHORT,
	REASON_SILENT,
	REASON_RATE_EXECUTABLE,
	REASON_RATE_USER,
	REASON_RATE_GLOBAL,
	REASON_SIGNATURE,
	REASON_STORAGE_NONE,
	REASON_ERROR,
	_REASON_MAX
};

/* The signals a core is dumped for, the signal label; anything else is "other", none known "unknown". */
#define METRICS_SIGNALS 10

/* The capture time's histogram: from the handler's start to the process let go, in seconds. */
#define METRICS_BUCKETS 11

/* What one crash adds to the counters. */
struct metrics_crash {
	enum result result;
	enum metrics_reason reason;
	int signal;              /* 0: not known */
	uint64_t input;          /* bytes the kernel gave */
	uint64_t written;        /* bytes the stored file takes on disk */
	unsigned removed;        /* old cores removed to make room for it */
	uint64_t removed_bytes;
	uint64_t capture_us;     /* from the handler's start to the release */
	uint64_t time;           /* the crash's time, seconds since the epoch */
};

/* Events that are no crash's own entry. */
enum metrics_event {
	EVENT_KERNEL_DROPPED,    /* pipe mode: crashes the kernel did not hand over (kernel.core_pipe_limit) */
	EVENT_REFUSED,           /* socket mode: connections refused (the server's limits) */
	EVENT_LOST,              /* crashes whose handler died before its entry (found by the next one) */
	_EVENT_MAX
};

/* The counters, as kept in METRICS_STATE. */
struct metrics {
	uint64_t crashes[_RESULT_MAX][_REASON_MAX];
	uint64_t signals[METRICS_SIGNALS + 2];   /* the known ones, then other, then unknown */
	uint64_t input, written, removed, removed_bytes;
	uint64_t events[_EVENT_MAX];
	uint64_t buckets[METRICS_BUCKETS + 1];   /* not cumulative; the last is past every bound */
	uint64_t capture_us;                     /* their sum */
	uint64_t last_time;
};

enum metrics_reason metrics_reason_of(const struct outcome *o);
const char *metrics_reason_name(enum metrics_reason r);
const char *metrics_signal_name(size_t i);
const char *metrics_event_name(enum metrics_event e);
size_t metrics_signal_index(int sig);
extern const double metrics_bounds[METRICS_BUCKETS];

int metrics_crash(int dirfd, const struct config *c, const struct metrics_crash *m);
int metrics_event(int dirfd, const struct config *c, enum metrics_event e, uint64_t n);
int metrics_read(int dirfd, struct metrics *m);
int metrics_print(FILE *f, int dirfd, const struct config *c, const struct metrics *m);
int metrics_file(const struct config *c, char *path, size_t len);
int metrics_export(int dirfd, const struct config *c, const struct metrics *m);

#endif
