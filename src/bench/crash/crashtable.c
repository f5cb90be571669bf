/*
 * crashtable.c: coresink-bench --crash's output: per handler, crash-to-release and crash-to-stored times, each with
 * its ratio to the larger ceiling of the same run and mode (pipe: null or direct; socket: null-socket or direct),
 * what the file takes, what the disk wrote, page-cache growth and the handler's peak RSS; the CSV, a row per crash;
 * the chart of median times.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "crash.h"

#define MIB (1024.0 * 1024.0)
#define RUNS_MAX 64

struct crash_summary {
	int handler, n, bad;
	double min, median, max, released, bytes, disk, written, cache, rss, cpu, mempeak, held, runq;
};

/* Sums up one handler's runs: medians of each measure. */
static struct crash_summary summarize(int handler, const struct crash_sample *s, int ns)
{
	double t[RUNS_MAX], rel[RUNS_MAX], bytes[RUNS_MAX], disk[RUNS_MAX], wr[RUNS_MAX], cache[RUNS_MAX], rss[RUNS_MAX];
	double cpu[RUNS_MAX], peak[RUNS_MAX], held[RUNS_MAX], runq[RUNS_MAX];
	struct crash_summary r = { .handler = handler };

	for (int i = 0; i < ns && r.n < RUNS_MAX; i++) {
		if (s[i].handler != handler)
			continue;
		t[r.n] = s[i].seconds;
		rel[r.n] = s[i].released;
		bytes[r.n] = (double)s[i].bytes / MIB;
		disk[r.n] = (double)s[i].disk / MIB;
		wr[r.n] = (double)s[i].written / MIB;
		cache[r.n] = (double)s[i].cache / MIB;
		rss[r.n] = (double)s[i].rss / 1024.0;
		cpu[r.n] = s[i].cpu;
		peak[r.n] = (double)s[i].mempeak / MIB;
		held[r.n] = s[i].held;
		runq[r.n] = s[i].runq;
		r.bad += !s[i].verified;
		r.n++;
	}
	r.median = bench_median(t, r.n);
	r.min = r.n ? t[0] : 0;
	r.max = r.n ? t[r.n - 1] : 0;
	r.released = bench_median(rel, r.n);
	r.bytes = bench_median(bytes, r.n);
	r.disk = bench_median(disk, r.n);
	r.written = bench_median(wr, r.n);
	r.cache = bench_median(cache, r.n);
	r.rss = bench_median(rss, r.n);
	r.cpu = bench_median(cpu, r.n);
	r.mempeak = bench_median(peak, r.n);
	r.held = bench_median(held, r.n);
	r.runq = bench_median(runq, r.n);
	return r;
}

/* Ceilings first, then the handlers from the fastest. */
static const struct handler *sort_handlers;

static int by_time(const void *a, const void *b)
{
	const struct crash_summary *x = a, *y = b;
	bool cx = handler_is_ceiling(&sort_handlers[x->handler]), cy = handler_is_ceiling(&sort_handlers[y->handler]);

	if (cx != cy)
		return cx ? -1 : 1;
	return (x->median > y->median) - (x->median < y->median);
}

/*
 * The ceiling a handler is judged against: the larger median of the ceilings of its mode. Socket mode's is
 * null-socket's where the run has one, else pipe mode's.
 */
static double ceiling_of(const struct handler *h, int nh, const struct crash_summary *sum, bool socket)
{
	double pipe = 0, sock = 0;

	for (int i = 0; i < nh; i++) {
		const struct handler *c = &h[sum[i].handler];

		if (c->kind == HANDLER_DIRECT || c->kind == HANDLER_NULL)
			pipe = sum[i].median > pipe ? sum[i].median : pipe;
		if (c->kind == HANDLER_DIRECT || c->kind == HANDLER_NULL_SOCKET)
			sock = sum[i].median > sock ? sum[i].median : sock;
	}
	for (int i = 0; i < nh; i++)
		if (h[sum[i].handler].kind == HANDLER_NULL_SOCKET)
			return socket ? sock : pipe;
	return pipe;
}

static void ratio(char *buf, size_t len, double t, double ceiling)
{
	if (ceiling > 0)
		(void) snprintf(buf, len, "%.2fx", t / ceiling);
	else
		(void) snprintf(buf, len, "-");
}

void crash_table(FILE *f, const struct handler *h, int nh, const struct crash_sample *s, int ns)
{
	/* The first nh are set below; all zeroed so that no analyser has to know that. */
	struct crash_summary sum[HANDLERS_MAX] = { 0 };
	int w = 16;

	for (int i = 0; i < nh; i++) {
		sum[i] = summarize(i, s, ns);
		if ((int)strlen(h[i].name) > w)
			w = (int)strlen(h[i].name);
	}
	sort_handlers = h;
	qsort(sum, (size_t)nh, sizeof(*sum), by_time);
	fprintf(f, "%-*s %9s %7s %8s %7s %7s %7s %8s %8s %8s %9s %8s %6s %8s %6s %6s  %s\n", w, "handler", "release_s",
		"ratio", "stored_s", "ratio", "min_s", "max_s", "size_MiB", "disk_MiB", "writ_MiB", "cache_MiB",
		"rss_KiB", "cpu_s", "peak_MiB", "held_s", "runq_s", "stored");
	for (int i = 0; i < nh; i++) {
		const struct crash_summary *r = &sum[i];
		double ceiling = ceiling_of(h, nh, sum, handler_is_socket_mode(&h[r->handler]));
		char rel[16], sto[16], wr[16] = "-", rss[16] = "-", cpu[16] = "-", peak[16] = "-", stored[32] = "verified";
		char held[16] = "-", runq[16] = "-";

		ratio(rel, sizeof(rel), r->released, ceiling);
		ratio(sto, sizeof(sto), r->median, ceiling);
		if (r->written > 0)
			(void) snprintf(wr, sizeof(wr), "%.0f", r->written);
		if (r->rss > 0)
			(void) snprintf(rss, sizeof(rss), "%.0f", r->rss);
		if (r->cpu > 0)
			(void) snprintf(cpu, sizeof(cpu), "%.2f", r->cpu);
		if (r->mempeak > 0)
			(void) snprintf(peak, sizeof(peak), "%.0f", r->mempeak);
		if (r->held >= 0)
			(void) snprintf(held, sizeof(held), "%.2f", r->held);
		if (r->runq >= 0)
			(void) snprintf(runq, sizeof(runq), "%.2f", r->runq);
		if (r->bad)
			(void) snprintf(stored, sizeof(stored), "FAILED %d of %d", r->bad, r->n);
		fprintf(f, "%-*s %9.2f %7s %8.2f %7s %7.2f %7.2f %8.0f %8.0f %8s %9.0f %8s %6s %8s %6s %6s  %s\n", w,
			h[r->handler].name, r->released, rel, r->median, sto, r->min, r->max, r->bytes, r->disk, wr, r->cache,
			rss, cpu, peak, held, runq, stored);
	}
	fprintf(f, "(release_s: median seconds from the fault until the process is let go; stored_s, min, max: until the "
		   "file has its final name;\n each ratio: that median over the larger ceiling's of the same mode (pipe: "
		   "null or direct; socket: null-socket or direct);\n writ_MiB: what the disk wrote meanwhile, all "
		   "writers (raw and compressed cores), - on a file system without a block device;\n rss from "
		   "coresink's journal entry, - without a journald; cpu_s and peak_MiB: a socket server's cgroup (v2) "
		   "for the crash,\n its processes until they are gone, page cache included; elsewhere cpu_s is "
		   "coresink's entry's (CORESINK_CPU_USEC:\n the handler and its stack trace), peak_MiB -; of release_s, "
		   "held_s: the dumping thread asleep, the kernel waiting\n for the handler to take the core or let it go, "
		   "runq_s: runnable, waiting for a CPU (its /proc/PID/schedstat); the rest it ran)\n");
}

/* One row per crash. 0 or -errno. */
int crash_csv(const char *path, const struct handler *h, const struct crash_sample *s, int ns)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "handler,run,released_seconds,seconds,bytes,disk_bytes,written_bytes,cache_bytes,rss_bytes,"
		   "cpu_seconds,mem_peak_bytes,held_seconds,runq_seconds,verified\n");
	for (int i = 0; i < ns; i++)
		fprintf(f, "%s,%d,%.6f,%.6f,%llu,%llu,%llu,%llu,%llu,%.6f,%llu,%.6f,%.6f,%s\n", h[s[i].handler].name,
			s[i].run, s[i].released, s[i].seconds, (unsigned long long)s[i].bytes, (unsigned long long)s[i].disk,
			(unsigned long long)s[i].written, (unsigned long long)s[i].cache, (unsigned long long)s[i].rss,
			s[i].cpu, (unsigned long long)s[i].mempeak, s[i].held, s[i].runq, s[i].verified ? "yes" : "no");
	return fclose(f) == 0 ? 0 : -errno;
}

/* The chart: median seconds to stored, with min-max. */
int crash_plot(const char *path, const struct handler *h, int nh, const struct crash_sample *s, int ns)
{
	const char *names[HANDLERS_MAX];
	double med[HANDLERS_MAX], lo[HANDLERS_MAX], hi[HANDLERS_MAX];

	for (int i = 0; i < nh; i++) {
		struct crash_summary r = summarize(i, s, ns);

		names[i] = h[i].name;
		med[i] = r.median, lo[i] = r.min, hi[i] = r.max;
	}
	return bench_bars(path, "coresink-bench --crash: seconds from the fault to the stored file (median, min-max)",
			  "seconds", nh, names, med, lo, hi);
}
