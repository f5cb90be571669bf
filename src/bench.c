/*
 * bench.c: coresink-bench, which strategy stores a core fastest from a pipe on this disk, and by how much. A
 * producer writes into a pipe as the kernel does; coresink's own engine (engine_copy(), the production code) is
 * the consumer, once per variant and run, interleaved; every output is verified.
 *
 * Exit codes: 0 done and every output verified, 1 an output was wrong, 100 usage, 111 system failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_producer.h"
#include "parse.h"

#define EXIT_WRONG 1
#define EXIT_USAGE 100
#define EXIT_SYSTEM 111
#define SAMPLES_MAX 1024

struct options {
	uint64_t size;
	int runs;
	const char *dir, *csv, *plot;
	enum data_kind data;
	enum write_mode writes;
	bool drop_caches;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: coresink-bench [--size BYTES] [--runs N] [--dir DIR] [--strategies LIST]\n"
		   "                      [--data random|zeros|core] [--writes 4k|1m|vmsplice]\n"
		   "                      [--csv FILE] [--plot FILE.png|FILE.svg] [--no-drop-caches]\n"
		   "       coresink-bench --help\n"
		   "       LIST: comma-separated null, splice, readwrite, naive-splice, each with :knob=value\n"
		   "             knobs: chunk=, buffer=, pipe=, hygiene=on|off, prealloc=keep-size|extend|ftruncate|none\n");
}

/* One knob of a variant, "key=value". 0 or -EINVAL. */
static int knob(struct variant *v, const char *kv)
{
	const char *val = strchr(kv, '=');
	uint64_t n;
	int p;

	if (!val++)
		return -EINVAL;
	if (strncmp(kv, "hygiene=", 8) == 0) {
		if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
			return -EINVAL;
		v->o.hygiene = strcmp(val, "on") == 0;
		return 0;
	}
	if (strncmp(kv, "prealloc=", 9) == 0) {
		if ((p = prealloc_from_string(val)) < 0)
			return -EINVAL;
		v->o.prealloc = (enum prealloc)p;
		return 0;
	}
	if (parse_bytes(val, &n) < 0 || n == 0 || n % 4096 || n > (1ULL << 30))
		return -EINVAL;
	if (strncmp(kv, "chunk=", 6) == 0)
		v->o.chunk = n;
	else if (strncmp(kv, "buffer=", 7) == 0)
		v->o.buffer = n;
	else if (strncmp(kv, "pipe=", 5) == 0)
		v->o.in_pipe = n;
	else
		return -EINVAL;
	return 0;
}

/* "name[:knob=value...]" into v. 0 or -EINVAL. */
static int parse_variant(const char *spec, struct variant *v)
{
	char buf[64], *save = NULL, *tok;
	int s;

	if (strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	strcpy(v->name, spec);
	engine_defaults(&v->o);
	v->o.keep_free = (struct size_spec) { 0, false, UINT64_MAX };
	tok = strtok_r(buf, ":", &save);
	v->null_sink = tok && strcmp(tok, "null") == 0;
	s = v->null_sink ? STRATEGY_SPLICE : tok ? strategy_from_string(tok) : -EINVAL;
	if (s < 0)
		return -EINVAL;
	v->o.strategy = (enum strategy)s;
	if (v->null_sink) {
		/* The ceiling: nothing but draining the pipe, no file to check, preallocate or clean. */
		v->o.check_space = false;
		v->o.hygiene = false;
		v->o.prealloc = PREALLOC_NONE;
	}
	while ((tok = strtok_r(NULL, ":", &save)))
		if (knob(v, tok) < 0)
			return -EINVAL;
	return 0;
}

static int parse_variants(const char *list, struct variant *v)
{
	char buf[1024], *save = NULL, *tok;
	int n = 0;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (n >= VARIANTS_MAX || parse_variant(tok, &v[n++]) < 0)
			return -EINVAL;
	return n > 0 ? n : -EINVAL;
}

static uint64_t cached_bytes(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Cached: %llu kB", &kb) == 1)
			break;
	if (f)
		(void) fclose(f);
	return kb * 1024;
}

/* Samples Cached every 5 ms while a run goes on: its peak is the run's page-cache footprint. */
struct sampler {
	pthread_t thread;
	atomic_bool stop;
	uint64_t peak;
};

static void *sample_cache(void *arg)
{
	struct sampler *s = arg;
	const struct timespec tick = { 0, 5000000 };

	while (!atomic_load(&s->stop)) {
		uint64_t c = cached_bytes();

		if (c > s->peak)
			s->peak = c;
		nanosleep(&tick, NULL);
	}
	return NULL;
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void) !write(fd, "3\n", 2);
		(void) close(fd);
	}
}

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int open_output(const struct options *opt, const struct variant *v, char *path, size_t len)
{
	if (v->null_sink)
		return open("/dev/null", O_WRONLY | O_CLOEXEC);
	(void) snprintf(path, len, "%s/.coresink-bench.%d", opt->dir, (int)getpid());
	return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* Checks the output: the right size, and for a file the right checksum. */
static bool verify(int out, const struct variant *v, const struct engine_stats *st, uint64_t size, uint64_t expect)
{
	uint64_t sum, got;

	if (st->bytes != size || st->truncated)
		return false;
	return v->null_sink || (checksum_file(out, &sum, &got) == 0 && got == size && sum == expect);
}

/* One measured run of variant v. 0 or -errno. */
static int run_one(const struct options *opt, const struct variant *v, uint64_t expect, struct sample *s)
{
	struct sampler smp = { .peak = 0 };
	struct engine_stats st;
	char path[4096] = "";
	int p[2], out, r, status;
	double t0, c0;
	pid_t pid;
	struct stat sb;
	uint64_t cache0;

	if (opt->drop_caches)
		drop_caches();
	out = open_output(opt, v, path, sizeof(path));
	if (out < 0 || pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = producer_start(p, opt->size, opt->writes);
	(void) close(p[1]);
	if (pid < 0)
		return (int)pid;
	cache0 = cached_bytes();
	pthread_create(&smp.thread, NULL, sample_cache, &smp);
	t0 = now(CLOCK_MONOTONIC);
	c0 = cpu_seconds();
	r = engine_copy(p[0], out, &v->o, &st);
	s->seconds = now(CLOCK_MONOTONIC) - t0;
	s->cpu = cpu_seconds() - c0;
	atomic_store(&smp.stop, true);
	pthread_join(smp.thread, NULL);
	(void) close(p[0]);
	(void) waitpid(pid, &status, 0);
	s->bytes = st.bytes;
	s->calls = st.in_calls + st.out_calls;
	s->cache = smp.peak > cache0 ? smp.peak - cache0 : 0;
	s->blocks = fstat(out, &sb) == 0 && !v->null_sink ? (uint64_t)sb.st_blocks * 512 : 0;
	s->verified = r == 0 && verify(out, v, &st, opt->size, expect);
	if (path[0])
		(void) unlink(path);
	(void) close(out);
	return 0;
}

static void progress(int done, int total, const char *name)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r[%d/%d] %-40s", done, total, name);
}

static int parse_options(int argc, char **argv, struct options *opt, const char **list)
{
	static const struct option longopts[] = {
		{ "csv", required_argument, NULL, 'c' }, { "data", required_argument, NULL, 'D' },
		{ "dir", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' },
		{ "no-drop-caches", no_argument, NULL, 'N' }, { "plot", required_argument, NULL, 'p' },
		{ "runs", required_argument, NULL, 'r' }, { "size", required_argument, NULL, 's' },
		{ "strategies", required_argument, NULL, 'S' }, { "writes", required_argument, NULL, 'w' },
		{ 0 },
	};
	uint64_t n;
	int ch, k;

	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': opt->csv = optarg; break;
		case 'd': opt->dir = optarg; break;
		case 'p': opt->plot = optarg; break;
		case 'S': *list = optarg; break;
		case 'N': opt->drop_caches = false; break;
		case 'h': usage(stdout); exit(0);
		case 's':
			if (parse_bytes(optarg, &n) < 0 || n == 0)
				return -EINVAL;
			opt->size = n;
			break;
		case 'r':
			if (parse_u64(optarg, &n) < 0 || n == 0 || n > 64)
				return -EINVAL;
			opt->runs = (int)n;
			break;
		case 'D':
			if ((k = data_kind_from_string(optarg)) < 0)
				return -EINVAL;
			opt->data = (enum data_kind)k;
			break;
		case 'w':
			if ((k = write_mode_from_string(optarg)) < 0)
				return -EINVAL;
			opt->writes = (enum write_mode)k;
			break;
		default:
			return -EINVAL;
		}
	}
	return optind == argc ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	struct options opt = { .size = 256ULL << 20, .runs = 3, .dir = "/var/tmp", .data = DATA_CORE,
			       .writes = WRITE_4K, .drop_caches = geteuid() == 0 };
	const char *list = "null,splice,readwrite,naive-splice";
	static struct variant v[VARIANTS_MAX];
	static struct sample s[SAMPLES_MAX];
	int nv, ns = 0, wrong = 0;
	uint64_t expect;

	if (parse_options(argc, argv, &opt, &list) < 0 || (nv = parse_variants(list, v)) < 0 ||
	    nv * opt.runs > SAMPLES_MAX)
		return usage(stderr), EXIT_USAGE;
	if (data_prepare(opt.data) < 0)
		return perror("coresink-bench"), EXIT_SYSTEM;
	expect = checksum_expected(opt.size);
	for (int run = 0; run < opt.runs; run++) {
		for (int i = 0; i < nv; i++, ns++) {
			progress(ns + 1, nv * opt.runs, v[i].name);
			s[ns] = (struct sample) { .variant = i, .run = run + 1 };
			if (run_one(&opt, &v[i], expect, &s[ns]) < 0)
				return fprintf(stderr, "\ncoresink-bench: %s: %s\n", v[i].name, strerror(errno)), EXIT_SYSTEM;
			wrong += !s[ns].verified;
		}
	}
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r%60s\r", "");
	printf("coresink-bench: %llu bytes of %s data, %s writes, into %s\n", (unsigned long long)opt.size,
	       opt.data == DATA_RANDOM ? "random" : opt.data == DATA_ZEROS ? "zero" : "core-like",
	       opt.writes == WRITE_4K ? "4 KiB" : opt.writes == WRITE_1M ? "1 MiB" : "vmsplice", opt.dir);
	report_table(stdout, v, nv, s, ns);
	if (opt.csv && report_csv(opt.csv, v, s, ns) < 0)
		return perror(opt.csv), EXIT_SYSTEM;
	if (opt.plot && report_plot(opt.plot, v, nv, s, ns) < 0)
		return fprintf(stderr, "coresink-bench: gnuplot failed for %s (apt-get install gnuplot-nox)\n",
			       opt.plot), EXIT_SYSTEM;
	return wrong ? EXIT_WRONG : 0;
}
