/* pipetable.c: coresink-bench's output for pipe input: the table by median throughput, the CSV, the chart. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "chart.h"

#define MIB (1024.0 * 1024.0)

struct summary {
	int variant, n;
	double min, median, max, cpu, calls_per_gib, cache, blocks;
	bool verified;
};

static double mbps(const struct sample *s)
{
	return s->seconds > 0 ? (double)s->bytes / MIB / s->seconds : 0;
}

static struct summary summarize(int variant, const struct sample *s, int ns)
{
	double rate[256], cpu[256], calls[256], cache[256], blocks[256];
	struct summary r = { .variant = variant, .verified = true };

	for (int i = 0; i < ns && r.n < 256; i++) {
		if (s[i].variant != variant)
			continue;
		rate[r.n] = mbps(&s[i]);
		cpu[r.n] = s[i].cpu;
		calls[r.n] = s[i].bytes ? (double)s[i].calls * 1073741824.0 / (double)s[i].bytes : 0;
		cache[r.n] = (double)s[i].cache / MIB;
		blocks[r.n] = (double)s[i].blocks / MIB;
		r.verified &= s[i].verified;
		r.n++;
	}
	r.median = bench_median(rate, r.n);
	r.min = r.n ? rate[0] : 0;
	r.max = r.n ? rate[r.n - 1] : 0;
	r.cpu = bench_median(cpu, r.n);
	r.calls_per_gib = bench_median(calls, r.n);
	r.cache = bench_median(cache, r.n);
	r.blocks = bench_median(blocks, r.n);
	return r;
}

/* Verified variants first, by median throughput. */
static int by_rate(const void *a, const void *b)
{
	const struct summary *x = a, *y = b;

	if (x->verified != y->verified)
		return x->verified ? -1 : 1;
	return (y->median > x->median) - (y->median < x->median);
}

/* The table: min/median/max MB/s, CPU, calls per GiB, page-cache growth, blocks, and % slower than the best. */
void bench_table(FILE *f, const struct variant *v, int nv, const struct sample *s, int ns)
{
	/* The first nv are set below; all zeroed so that no analyser has to know that. */
	struct summary sum[VARIANTS_MAX] = { 0 };
	double best = 0;
	int w = 8;

	for (int i = 0; i < nv; i++) {
		sum[i] = summarize(i, s, ns);
		if ((int)strlen(v[i].name) > w)
			w = (int)strlen(v[i].name);
	}
	qsort(sum, (size_t)nv, sizeof(*sum), by_rate);
	for (int i = 0; i < nv; i++)
		if (sum[i].verified && !v[sum[i].variant].null_sink && sum[i].median > best)
			best = sum[i].median;
	fprintf(f, "%-*s %8s %8s %8s %7s %10s %9s %9s %8s  %s\n", w, "strategy", "min", "median", "max", "cpu_s",
		"calls/GiB", "cache_MiB", "disk_MiB", "slower", "output");
	for (int i = 0; i < nv; i++) {
		const struct summary *r = &sum[i];
		char slower[16] = "ceiling";

		if (!v[r->variant].null_sink)
			(void) snprintf(slower, sizeof(slower), best > 0 && r->median > 0 ?
					"%+.0f%%" : "-", best > 0 && r->median > 0 ? (best / r->median - 1) * 100 : 0);
		fprintf(f, "%-*s %8.0f %8.0f %8.0f %7.2f %10.0f %9.0f %9.0f %8s  %s\n", w, v[r->variant].name, r->min,
			r->median, r->max, r->cpu, r->calls_per_gib, r->cache, r->blocks, slower,
			r->verified ? "verified" : "FAILED: wrong size or checksum");
	}
	fprintf(f, "(MB/s are MiB/s of pipe input; %d runs each, interleaved)\n", nv ? ns / nv : 0);
}

/* One row per run. 0 or -errno. */
int bench_csv(const char *path, const struct variant *v, const struct sample *s, int ns)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "strategy,run,bytes,seconds,mbps,cpu_seconds,calls,cache_bytes,disk_bytes,verified\n");
	for (int i = 0; i < ns; i++)
		fprintf(f, "%s,%d,%llu,%.6f,%.1f,%.4f,%lu,%llu,%llu,%s\n", v[s[i].variant].name, s[i].run,
			(unsigned long long)s[i].bytes, s[i].seconds, mbps(&s[i]), s[i].cpu, s[i].calls,
			(unsigned long long)s[i].cache, (unsigned long long)s[i].blocks, s[i].verified ? "yes" : "no");
	return fclose(f) == 0 ? 0 : -errno;
}

/* The pipe runs' chart: median MiB/s with min-max. */
int bench_plot(const char *path, const struct variant *v, int nv, const struct sample *s, int ns)
{
	const char *names[VARIANTS_MAX];
	double med[VARIANTS_MAX], lo[VARIANTS_MAX], hi[VARIANTS_MAX];

	for (int i = 0; i < nv; i++) {
		struct summary r = summarize(i, s, ns);

		names[i] = v[i].name;
		med[i] = r.median, lo[i] = r.min, hi[i] = r.max;
	}
	return bench_bars(path, "coresink-bench: MiB/s of pipe input (median, min-max)", "MiB/s", nv, names, med, lo,
			  hi);
}
