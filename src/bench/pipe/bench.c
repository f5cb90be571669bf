/*
 * bench.c: coresink-bench, which strategy stores a core fastest from a pipe on this disk, and by how much. A
 * producer writes into a pipe as the kernel does; coresink's own engine (engine_copy(), the production code) is
 * the consumer, once per variant and run, interleaved; every output is verified.
 *
 * Exit codes: 0 done and every output verified, 1 an output was wrong, 100 usage, 111 system failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "bench.h"
#include "measure.h"
#include "producer.h"

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
		   "       coresink-bench --crash [--size BYTES] [--runs N] [--dir DIR] [--workload W]\n"
		   "                      [--handlers LIST] [--coresink PATH] [--csv FILE] [--plot FILE]\n"
		   "                      (real crashes, as root; coresink-bench --crash --help)\n"
		   "       coresink-bench --drain\n"
		   "       coresink-bench --drain-socket PATH [read]\n"
		   "       coresink-bench --help\n"
		   "       LIST: comma-separated null, splice, readwrite, naive-splice, each with :knob=value\n"
		   "             knobs: chunk=, buffer=, pipe=, hygiene=on|off, sparse=on|off, flush=on|off,\n"
		   "                    compress=LEVEL, workers=N,\n"
		   "                    ahead=N (buffers read ahead by a thread),\n"
		   "                    prealloc=keep-size|extend|ftruncate|none\n");
}

/*
 * The numeric knobs, ints of the engine's options: a zstd level (compression while receiving, to compare with
 * compressing after the process is gone), zstd's threads (the handler's CompressThreads=), and buffers a thread
 * reads ahead (the handler's ReadAhead=, in buffers).
 */
static const struct {
	const char *name;
	uint64_t max;
	size_t field;
} numeric_knobs[] = {
	{ "compress", 19, offsetof(struct engine_opts, compress) },
	{ "workers", 64, offsetof(struct engine_opts, compress_workers) },
	{ "ahead", 64, offsetof(struct engine_opts, read_ahead) },
};

/* One knob of a variant, "key=value". 0 or -EINVAL. */
static int knob(struct variant *v, const char *kv)
{
	const char *val = strchr(kv, '=');
	uint64_t n;
	int p;

	if (!val++)
		return -EINVAL;
	if (strncmp(kv, "hygiene=", 8) == 0 || strncmp(kv, "sparse=", 7) == 0 || strncmp(kv, "flush=", 6) == 0) {
		if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
			return -EINVAL;
		*(kv[0] == 'h' ? &v->o.hygiene : kv[0] == 's' ? &v->o.sparse : &v->flush) = strcmp(val, "on") == 0;
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(numeric_knobs); i++) {
		if (strncmp(kv, numeric_knobs[i].name, (size_t)(val - 1 - kv)) != 0 ||
		    numeric_knobs[i].name[val - 1 - kv] != '\0')
			continue;
		if (parse_u64(val, &n) < 0 || n > numeric_knobs[i].max)
			return -EINVAL;
		*(int *)((char *)&v->o + numeric_knobs[i].field) = (int)n;
		return 0;
	}
	if (strncmp(kv, "prealloc=", 9) == 0) {
		if ((p = prealloc_from_string(val)) < 0)
			return -EINVAL;
		v->o.prealloc = (enum prealloc)p;
		return 0;
	}
	if (parse_bytes(val, &n) < 0 || n == 0 || n % PAGE_BYTES || n > (1ULL << 30))
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

static int open_output(const struct options *opt, const struct variant *v, char *path, size_t len)
{
	if (v->null_sink)
		return open("/dev/null", O_WRONLY | O_CLOEXEC);
	(void) snprintf(path, len, "%s/.coresink-bench.%d", opt->dir, (int)getpid());
	return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* The checksum of a zstd file's content, read back through zstd -dc. 0 or -errno. */
static int checksum_zstd(int fd, uint64_t *sum, uint64_t *size)
{
	int p[2], status, r;
	pid_t pid;

	if (lseek(fd, 0, SEEK_SET) < 0 || pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		(void) dup2(fd, STDIN_FILENO);
		(void) dup2(p[1], STDOUT_FILENO);
		execlp("zstd", "zstd", "-dcq", (char *)NULL);
		_exit(EXIT_SYSTEM);
	}
	(void) close(p[1]);
	r = pid < 0 ? -errno : checksum_file(p[0], sum, size);
	(void) close(p[0]);
	if (pid > 0 && (io_waitpid(pid, &status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0))
		r = -EBADMSG;
	return r;
}

/* Checks the output: the right size, and for a file the right checksum (of its content, when compressed). */
static bool verify(int out, const struct variant *v, const struct engine_stats *st, uint64_t size, uint64_t expect)
{
	/* Set by the checksum whenever it returns 0 (clang's analyzer takes -errno after a failed lseek for 0). */
	uint64_t sum = 0, got = 0;

	if (st->input != size || st->truncated)
		return false;
	if (v->null_sink)
		return true;
	return (v->o.compress ? checksum_zstd(out, &sum, &got) : checksum_file(out, &sum, &got)) == 0 && got == size &&
	       sum == expect;
}

/* What one run holds open, for its one cleanup. */
struct run {
	int out, p[2];
	int dirfd;                /* the output's directory, for flush=on (the flushes' file is made there) */
	char path[PATH_MAX];
	pid_t producer;
};

static void run_close(struct run *r)
{
	int saved = errno, status;

	for (int i = 0; i < 2; i++)
		if (r->p[i] >= 0)
			(void) close(r->p[i]);
	/* With the read end closed, a producer still writing dies of SIGPIPE. */
	if (r->producer > 0)
		(void) io_waitpid(r->producer, &status);
	if (r->path[0])
		(void) unlink(r->path);
	if (r->out >= 0)
		(void) close(r->out);
	if (r->dirfd >= 0)
		(void) close(r->dirfd);
	errno = saved;
}

/* Opens the output and the pipe, and starts the producer. 0 or -errno. */
static int run_open(const struct options *opt, const struct variant *v, struct run *r)
{
	pid_t pid;

	r->out = open_output(opt, v, r->path, sizeof(r->path));
	if (r->out < 0) {
		r->path[0] = '\0';   /* not ours to remove */
		return -errno;
	}
	if (v->flush && (r->dirfd = open(opt->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	if (pipe2(r->p, O_CLOEXEC) < 0)
		return -errno;
	pid = producer_start(r->p, opt->size, opt->writes);
	if (pid < 0)
		return (int)pid;
	r->producer = pid;
	(void) close(r->p[1]);
	r->p[1] = -1;
	return 0;
}

/* Times the engine on the run's pipe, with the page cache sampled alongside. 0 or -errno. */
static int run_engine(const struct variant *v, struct run *run, struct engine_stats *st, struct sample *s,
		      int *copied)
{
	struct engine_opts o = v->o;
	struct sampler smp;
	double t0, c0;
	int r;

	o.flush_dir = run->dirfd;
	r = sampler_start(&smp);
	if (r < 0)
		return r;
	t0 = now(CLOCK_MONOTONIC);
	c0 = cpu_seconds();
	*copied = engine_copy(run->p[0], run->out, &o, st);
	s->seconds = now(CLOCK_MONOTONIC) - t0;
	s->cpu = cpu_seconds() - c0;
	s->cache = sampler_stop(&smp);
	return 0;
}

/* One measured run of variant v. 0 or -errno; a wrong output is a sample that is not verified. */
static int run_one(const struct options *opt, const struct variant *v, uint64_t expect, struct sample *s)
{
	struct run run = { .out = -1, .p = { -1, -1 }, .dirfd = -1 };
	struct engine_stats st;
	int r, copied = 0;

	if (opt->drop_caches)
		drop_caches();
	r = run_open(opt, v, &run);
	if (r == 0)
		r = run_engine(v, &run, &st, s, &copied);
	if (r == 0) {
		s->bytes = st.bytes;
		s->calls = st.in_calls + st.out_calls;
		s->blocks = st.allocated;   /* the engine's own count: 0 for the null sink */
		s->verified = copied == 0 && verify(run.out, v, &st, opt->size, expect);
	}
	run_close(&run);
	return r;
}

static void progress(int done, int total, const char *name)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r[%d/%d] %-40s", done, total, name);
}

/*
 * --drain: standard input into /dev/null with the null variant, as a kernel.core_pattern handler: how fast the
 * kernel can emit a core when nothing stores it.
 */
static int drain(void)
{
	struct variant v;
	struct engine_stats st;
	int out = open("/dev/null", O_WRONLY | O_CLOEXEC), r;

	if (out < 0 || parse_variant("null", &v) < 0)
		return EXIT_SYSTEM;
	r = engine_copy(STDIN_FILENO, out, &v.o, &st);
	(void) close(out);
	return r < 0 ? EXIT_SYSTEM : 0;
}

static int parse_options(int argc, char **argv, struct options *opt, const char **list)
{
	static const struct option longopts[] = {
		{ "csv", required_argument, NULL, 'c' }, { "data", required_argument, NULL, 'D' },
		{ "drain", no_argument, NULL, 'R' },
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
		case 'R': exit(argc == 2 ? drain() : EXIT_USAGE);
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

/* coresink-bench on pipe input (the default mode): the write strategies, against the null sink's ceiling. */
int pipe_main(int argc, char **argv)
{
	struct options opt = { .size = 256ULL << 20, .runs = 3, .dir = "/var/tmp", .data = DATA_CORE,
			       .writes = WRITE_4K, .drop_caches = geteuid() == 0 };
	const char *list = "null,readwrite,readwrite:sparse=off,splice,naive-splice";
	static struct variant v[VARIANTS_MAX];
	static struct sample s[SAMPLES_MAX];
	int nv, ns = 0, wrong = 0, r;
	uint64_t expect;

	if (parse_options(argc, argv, &opt, &list) < 0 || (nv = parse_variants(list, v)) < 0 ||
	    nv * opt.runs > SAMPLES_MAX)
		return usage(stderr), EXIT_USAGE;
	r = data_prepare(opt.data);
	if (r < 0)
		return fail_code(EXIT_SYSTEM, "%s", strerror(-r));
	expect = checksum_expected(opt.size);
	for (int run = 0; run < opt.runs; run++) {
		for (int i = 0; i < nv; i++, ns++) {
			progress(ns + 1, nv * opt.runs, v[i].name);
			s[ns] = (struct sample) { .variant = i, .run = run + 1 };
			r = run_one(&opt, &v[i], expect, &s[ns]);
			if (r < 0)
				return fputc('\n', stderr), fail_code(EXIT_SYSTEM, "%s: %s", v[i].name, strerror(-r));
			wrong += !s[ns].verified;
		}
	}
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r%60s\r", "");
	printf("coresink-bench: %llu bytes of %s data, %s writes, into %s\n", (unsigned long long)opt.size,
	       data_kind_to_string(opt.data), write_mode_to_string(opt.writes), opt.dir);
	bench_table(stdout, v, nv, s, ns);
	if (opt.csv && bench_csv(opt.csv, v, s, ns) < 0)
		return perror(opt.csv), EXIT_SYSTEM;
	if (opt.plot && bench_plot(opt.plot, v, nv, s, ns) < 0)
		return fail_code(EXIT_SYSTEM, "gnuplot failed for %s (apt-get install gnuplot-nox)",
			       opt.plot);
	return wrong ? EXIT_WRONG : 0;
}
