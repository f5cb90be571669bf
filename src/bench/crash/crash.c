/*
 * crash.c: coresink-bench --crash, as root: crash-to-stored time of real crashes under each handler. The bench
 * forks its own victim (victim.c), points kernel.core_pattern at one handler after the other (interleaved runs, caches
 * dropped before each), times from the fault to the stored file, and reads the file back against the victim's
 * memory. The two ceilings are measured in the same run: the kernel emitting into a sink that stores nothing
 * (null), and the disk writing as many bytes with O_DIRECT (direct). kernel.core_pattern is restored on every exit.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sys/inotify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "base.h"
#include "cgacct.h"
#include "corecheck.h"
#include "crash.h"
#include "handler.h"
#include "measure.h"
#include "pattern.h"
#include "sysctl.h"
#include "victim.h"

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/local/libexec"
#endif

#define CRASH_SAMPLES_MAX 512
#define DIRECT_BLOCK (16u << 20)             /* dd bs=16M: one O_DIRECT write in flight, as a plain writer has */
#define STORED_WAIT_MS 120000                /* a handler's file may appear after the crash has returned */
#define MESSAGE_ID_CRASH "fc2e22bc6ee647b6b90729ab34a250b1"

struct crash_options {
	uint64_t size;
	int runs;
	enum workload workload;
	const char *list, *csv, *plot;
};

static void crash_usage(FILE *f)
{
	fprintf(f, "usage: coresink-bench --crash [--size BYTES] [--runs N] [--dir DIR] [--workload W]\n"
		   "                      [--handlers LIST] [--coresink PATH] [--csv FILE] [--plot FILE.png|FILE.svg]\n"
		   "       W: dense, core, threads, sparse\n"
		   "       LIST: comma-separated readwrite, splice, naive-splice (coresink, with :sparse=on|off,\n"
		   "             :chunk=SIZE, :Key=Value of coresink.conf), socket (coresink --serve, with the same\n"
		   "             knobs), kernel, cat, exec:PATH (PATH FILE stores the core it reads from stdin),\n"
		   "             null, null-socket[:read], direct, systemd-coredump, systemd-coredumpd (systemd 262's\n"
		   "             socket server, running)\n"
		   "       BYTES: up to 16G (the victim holds them in memory)\n");
}

/* The stored file of the last crash: the one entry of the cores directory but the ledger, or systemd-coredump's. */
static int stored_path(const struct handler *h, const struct bench_paths *p, pid_t pid, char *path, size_t size)
{
	char tag[32];
	const char *dir = handler_stores_in_systemd(h) ? SYSTEMD_COREDUMP_DIR : p->cores;
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = -ENOENT;

	if (!d)
		return -errno;
	/* systemd-coredump names it core.COMM.UID.BOOTID.PID.USEC.zst, once complete (a hidden name before). */
	(void) snprintf(tag, sizeof(tag), ".%d.", (int)pid);
	while ((e = readdir(d)) && found < 0)
		if (e->d_name[0] != '.' && (!handler_stores_in_systemd(h) || strstr(e->d_name, tag)))
			found = snprintf(path, size, "%s/%s", dir, e->d_name) < (int)size ? 0 : -ENAMETOOLONG;
	(void) closedir(d);
	return found;
}

/*
 * Where the handler publishes after it lets the process go (coresink links its file after compressing it,
 * systemd-coredump's socket-activated instance stores after the crash has returned): the directory to watch.
 */
static const char *late_dir(const struct handler *h, const struct bench_paths *p)
{
	return handler_stores_in_systemd(h) ? SYSTEMD_COREDUMP_DIR : h->kind == HANDLER_CORESINK ? p->cores : NULL;
}

/* Watches the directory the stored file will appear in, from before the crash. The inotify fd, or -1. */
static int watch_stored(const struct handler *h, const struct bench_paths *p)
{
	const char *dir = late_dir(h, p);
	int fd = dir ? inotify_init1(IN_CLOEXEC | IN_NONBLOCK) : -1;

	if (fd >= 0 && inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO) < 0) {
		(void) close(fd);
		fd = -1;
	}
	return fd;
}

/* Waits until pid's stored file has its final name (a link or rename into the watched directory). 0 or -errno. */
static int wait_stored(int ifd, const struct handler *h, const struct bench_paths *p, pid_t pid, char *path,
		       size_t size)
{
	double until = now(CLOCK_MONOTONIC) + STORED_WAIT_MS / 1000.0;
	char events[4096];

	while (stored_path(h, p, pid, path, size) < 0) {
		struct pollfd pfd = { .fd = ifd, .events = POLLIN };
		double left = until - now(CLOCK_MONOTONIC);

		if (ifd < 0 || left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return -errno;
		while (read(ifd, events, sizeof(events)) > 0)
			;
	}
	return 0;
}

/*
 * Opens the stored core for reading as the victim's memory: a compressed one through zstd -dc, an encrypted one
 * (Encrypt=bench) through age -d with the run's identity first. fd or -errno.
 */
static int open_core(const char *path, pid_t *decompressor)
{
	size_t n = strlen(path);
	bool age = n > 4 && strcmp(path + n - 4, ".age") == 0;
	bool zst = n > 4 && strcmp(path + n - (age ? 8 : 4), age ? ".zst.age" : ".zst") == 0;
	int p[2];

	*decompressor = 0;
	if (!zst && !age)
		return open(path, O_RDONLY | O_CLOEXEC);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	*decompressor = fork();
	if (*decompressor == 0) {
		(void) dup2(p[1], STDOUT_FILENO);
		if (age)
			execlp("sh", "sh", "-c", zst ? "age -d -i \"$1\" \"$2\" | zstd -dcq" : "age -d -i \"$1\" \"$2\"", "sh",
			       handler_age_identity, path, (char *)NULL);
		else
			execlp("zstd", "zstd", "-dcq", path, (char *)NULL);
		_exit(EXIT_SYSTEM);
	}
	(void) close(p[1]);
	return *decompressor < 0 ? (close(p[0]), -errno) : p[0];
}

/* Reads the stored core back against the victim. */
static bool verify(const char *path, const struct victim *v)
{
	pid_t dec;
	int fd = open_core(path, &dec), status, r;

	if (fd < 0)
		return false;
	r = corecheck_stream(fd, v);
	(void) close(fd);
	if (dec > 0 && (io_waitpid(dec, &status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0))
		r = -EBADMSG;
	return r == 0;
}

/* The number in field of the journal's current entry ("FIELD=123"). 0 or -errno. */
static int entry_u64(sd_journal *j, const char *field, uint64_t *v)
{
	const void *data;
	size_t len, skip = strlen(field) + 1;
	int r = sd_journal_get_data(j, field, &data, &len);

	if (r < 0)
		return r;
	return len > skip ? parse_u64_prefix((const char *)data + skip, len - skip, v) : -EINVAL;
}

/*
 * coresink's peak RSS and CPU for this crash (CORESINK_MAXRSS, CORESINK_CPU_USEC), from its entry when a journald
 * took it; left 0 when none did. The CPU only where no cgroup (v2) counted it: cpu is then 0.
 */
static void entry_footprint(pid_t pid, uint64_t *rss, double *cpu)
{
	char match[64];
	sd_journal *j;
	uint64_t usec = 0;

	if (access("/run/systemd/journal/socket", F_OK) < 0 || sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY) < 0)
		return;
	(void) snprintf(match, sizeof(match), "COREDUMP_PID=%d", (int)pid);
	(void) sd_journal_add_match(j, match, 0);
	(void) sd_journal_add_match(j, "MESSAGE_ID=" MESSAGE_ID_CRASH, 0);
	for (int tries = 0; tries < 30 && *rss == 0; tries++)
		if (sd_journal_next(j) <= 0 || entry_u64(j, "CORESINK_MAXRSS", rss) < 0)
			(void) sd_journal_wait(j, 100000);
	if (*rss > 0 && *cpu == 0 && entry_u64(j, "CORESINK_CPU_USEC", &usec) == 0)
		*cpu = (double)usec / 1e6;
	sd_journal_close(j);
}

/* Empties the cores directory (the ledger stays: it holds no limit that a benchmark's config applies). */
static void clear_cores(const struct bench_paths *p)
{
	DIR *d = opendir(p->cores);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			(void) unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		(void) closedir(d);
}

/* What the disk of the cores directory wrote since it had written w0 bytes; 0 when it cannot tell. */
static uint64_t written_since(const struct bench_paths *p, uint64_t w0)
{
	uint64_t w1 = device_written(p->cores);

	return w0 && w1 > w0 ? w1 - w0 : 0;
}

/* The disk's ceiling: as many bytes as the crash, written with O_DIRECT from one aligned block, then synced. */
static int direct_run(const struct bench_paths *p, uint64_t size, struct crash_sample *s)
{
	char path[PATH_MAX + 16];
	struct stat st;
	void *block;
	double t0;
	uint64_t w0;
	int fd, r = 0;

	if (posix_memalign(&block, PAGE_BYTES, DIRECT_BLOCK) != 0)
		return -ENOMEM;
	for (size_t i = 0; i < DIRECT_BLOCK / 8; i++)
		((uint64_t *)block)[i] = pattern_word(i);
	(void) snprintf(path, sizeof(path), "%s/core.direct", p->cores);
	drop_caches();
	w0 = device_written(p->cores);
	t0 = now(CLOCK_MONOTONIC);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0)
		r = -errno;
	for (uint64_t done = 0; r == 0 && done < size; done += DIRECT_BLOCK)
		r = io_write_full(fd, block, DIRECT_BLOCK);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	s->seconds = s->released = now(CLOCK_MONOTONIC) - t0;
	s->written = written_since(p, w0);
	if (r == 0 && fstat(fd, &st) == 0) {
		s->bytes = (uint64_t)st.st_size;
		s->disk = (uint64_t)st.st_blocks * 512;
		s->verified = s->bytes >= size;
	}
	if (fd >= 0)
		(void) close(fd);
	free(block);
	clear_cores(p);
	return r;
}

/* What the crash left: the file's size and blocks, whether it is the victim's memory, the handler's RSS. */
static void measure_stored(const struct handler *h, const struct victim *v, const char *path, pid_t pid,
			   struct crash_sample *s)
{
	struct stat st;

	if (h->kind == HANDLER_NULL || h->kind == HANDLER_NULL_SOCKET) {
		s->verified = true;   /* nothing is stored: it shows how fast the kernel can emit */
		return;
	}
	if (!path || stat(path, &st) < 0)
		return;
	s->bytes = (uint64_t)st.st_size;
	s->disk = (uint64_t)st.st_blocks * 512;
	s->verified = verify(path, v);
	if (h->kind == HANDLER_CORESINK)
		entry_footprint(pid, &s->rss, &s->cpu);
}

/* One crash under handler h, timed from the fault to the stored file. 0 or -errno (the benchmark stops). */
static int crash_run(const struct handler *h, const struct bench_paths *p, const struct crash_options *o,
		     struct crash_sample *s)
{
	char path[PATH_MAX * 2];
	struct victim v;
	struct sampler smp;
	struct cgacct acct;
	double t0;
	uint64_t w0;
	pid_t pid;
	int r, stored, ifd;

	s->held = s->runq = -1;
	if (h->kind == HANDLER_DIRECT)
		return direct_run(p, o->size, s);
	r = sysctl_core_pattern(h->pattern);
	if (r < 0)
		return r;
	r = victim_start(&v, o->workload, o->size);
	if (r < 0)
		return r;
	pid = v.pid;
	drop_caches();
	r = sampler_start(&smp);
	if (r < 0)
		return victim_reap(&v), r;
	ifd = watch_stored(h, p);
	w0 = device_written(p->cores);
	cgacct_begin(&acct, h->cgroup);
	r = victim_crash(&v, &t0);
	/* The process is gone when the handler lets it go; the file may get its name later. */
	s->released = now(CLOCK_MONOTONIC) - t0;
	victim_held(&v, s->released, &s->held, &s->runq);
	stored = r == 0 ? wait_stored(ifd, h, p, pid, path, sizeof(path)) : r;
	s->seconds = late_dir(h, p) ? now(CLOCK_MONOTONIC) - t0 : s->released;
	s->cache = sampler_stop(&smp);
	cgacct_end(&acct, h->cgroup, &s->cpu, &s->mempeak);
	s->written = written_since(p, w0);
	if (ifd >= 0)
		(void) close(ifd);
	if (r < 0)
		return r;
	measure_stored(h, &v, stored == 0 ? path : NULL, pid, s);
	if (handler_stores_in_systemd(h) && stored == 0)
		(void) unlink(path);
	clear_cores(p);
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st, (void) flag, (void) ftw;
	(void) remove(path);
	return 0;
}

/* The bench's own directory under dir, with the cores directory coresink accepts (root's, 0755). 0 or -errno. */
static int make_paths(const char *dir, const char *coresink, struct bench_paths *p)
{
	ssize_t n = readlink("/proc/self/exe", p->self, sizeof(p->self) - 1);

	if (n < 0)
		return -errno;
	p->self[n] = '\0';
	if (snprintf(p->coresink, sizeof(p->coresink), "%s", coresink) >= (int)sizeof(p->coresink) ||
	    snprintf(p->dir, sizeof(p->dir), "%s/cs-bench.XXXXXX", dir) >= (int)sizeof(p->dir) - 16)
		return -ENAMETOOLONG;
	/* Paths go into core_pattern, which the kernel splits at blanks and expands at '%'. */
	if (strpbrk(p->dir, " \t\n%|") || strpbrk(p->self, " \t\n%|"))
		return -EINVAL;
	if (!mkdtemp(p->dir))
		return -errno;
	if (snprintf(p->cores, sizeof(p->cores), "%s/cores", p->dir) >= (int)sizeof(p->cores))
		return -ENAMETOOLONG;
	if (chmod(p->dir, 0755) < 0 || mkdir(p->cores, 0755) < 0)
		return -errno;
	return 0;
}

static int parse_crash_options(int argc, char **argv, struct crash_options *o, const char **dir,
			       const char **coresink)
{
	static const struct option longopts[] = {
		{ "coresink", required_argument, NULL, 'C' }, { "csv", required_argument, NULL, 'c' },
		{ "dir", required_argument, NULL, 'd' }, { "handlers", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' }, { "plot", required_argument, NULL, 'p' },
		{ "runs", required_argument, NULL, 'r' }, { "size", required_argument, NULL, 's' },
		{ "workload", required_argument, NULL, 'w' },
		{ 0 },
	};
	uint64_t n;
	int ch, k;

	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'C': *coresink = optarg; break;
		case 'c': o->csv = optarg; break;
		case 'd': *dir = optarg; break;
		case 'H': o->list = optarg; break;
		case 'p': o->plot = optarg; break;
		case 'h': crash_usage(stdout); exit(0);
		case 's':
			if (parse_bytes(optarg, &n) < 0 || n < PAGE_BYTES || n % PAGE_BYTES)
				return -EINVAL;
			o->size = n;
			break;
		case 'r':
			if (parse_u64(optarg, &n) < 0 || n == 0 || n > 32)
				return -EINVAL;
			o->runs = (int)n;
			break;
		case 'w':
			if ((k = workload_from_string(optarg)) < 0)
				return -EINVAL;
			o->workload = (enum workload)k;
			break;
		default:
			return -EINVAL;
		}
	}
	return optind == argc ? 0 : -EINVAL;
}

static int parse_handlers(const char *list, const struct bench_paths *p, struct handler *h)
{
	char buf[1024], *save = NULL, *tok;
	int n = 0, r;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n >= HANDLERS_MAX)
			return -EINVAL;
		r = handler_parse(tok, n, p, &h[n]);
		if (r == -ENOENT && h[n].kind == HANDLER_CORESINK)
			return fail_code(r, "handler %s: no coresink at %s (--coresink PATH; make install puts it there)",
					 tok, p->coresink);
		if (r == -ENOTCONN)
			return fail_code(r, "handler %s: nothing serves %s (systemctl start systemd-coredumpd.service; "
					 "systemd 262 and Linux 6.19)", tok, SYSTEMD_COREDUMPD_SOCKET);
		if (r < 0)
			return fail_code(r, "handler %s: %s", tok, r == -EINVAL ?
				       "unknown, or a knob coresink would not take" : strerror(-r));
		n++;
	}
	return n > 0 ? n : -EINVAL;
}

/*
 * Every handler once per run, interleaved (A B C A B C) so that drift hits all alike. Samples taken, or -errno.
 * The sampler runs once first: the stack glibc keeps after its thread ends is then in every victim's core alike.
 */
static int run_all(const struct handler *h, int nh, const struct bench_paths *p, const struct crash_options *o,
		   struct crash_sample *s)
{
	struct sampler warm;
	int ns = 0;

	if (sampler_start(&warm) == 0)
		(void) sampler_stop(&warm);

	for (int run = 0; run < o->runs; run++)
		for (int i = 0; i < nh; i++, ns++) {
			int r;

			if (isatty(STDERR_FILENO))
				fprintf(stderr, "\r[%d/%d] %-40s", ns + 1, nh * o->runs, h[i].name);
			s[ns] = (struct crash_sample) { .handler = i, .run = run + 1 };
			r = crash_run(&h[i], p, o, &s[ns]);
			if (r < 0)
				return fputc('\n', stderr), fail_code(r, "%s: %s", h[i].name, strerror(-r));
		}
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r%60s\r", "");
	return ns;
}

/* The file systems the benchmark's tables (docs/benchmark.md) name; others by their magic number. */
static void fs_name(const char *dir, char *name, size_t size)
{
	static const struct { unsigned long magic; const char *name; } known[] = {
		{ 0xEF53, "ext4" }, { 0x58465342, "xfs" }, { 0x9123683E, "btrfs" }, { 0x01021994, "tmpfs" },
	};
	struct statfs sf;

	(void) snprintf(name, size, "unknown file system");
	if (statfs(dir, &sf) < 0)
		return;
	(void) snprintf(name, size, "f_type 0x%lx", (unsigned long)sf.f_type);
	for (size_t i = 0; i < ELEMENTSOF(known); i++)
		if (known[i].magic == (unsigned long)sf.f_type)
			(void) snprintf(name, size, "%s", known[i].name);
}

static void header(const struct crash_options *o, const struct bench_paths *p)
{
	struct utsname u;
	char fs[32];

	fs_name(p->dir, fs, sizeof(fs));
	(void) uname(&u);
	printf("coresink-bench --crash: %llu MiB %s crash, %d runs each, interleaved, into %s (%s; Linux %s, %ld CPUs)\n",
	       (unsigned long long)(o->size >> 20), workload_to_string(o->workload), o->runs, p->dir, fs, u.release,
	       sysconf(_SC_NPROCESSORS_ONLN));
}

static int report(const struct crash_options *o, const struct handler *h, int nh, const struct crash_sample *s,
		  int ns)
{
	bool wrong = false;

	crash_table(stdout, h, nh, s, ns);
	for (int i = 0; i < ns; i++)
		wrong |= !s[i].verified;
	if (o->csv && crash_csv(o->csv, h, s, ns) < 0)
		return perror(o->csv), EXIT_SYSTEM;
	if (o->plot && crash_plot(o->plot, h, nh, s, ns) < 0)
		return fail_code(EXIT_SYSTEM, "gnuplot failed for %s (apt-get install gnuplot-nox)",
			       o->plot);
	return wrong ? EXIT_WRONG : 0;
}

/* The default handlers: coresink's strategies, the naive ones, both ceilings, systemd-coredump when installed. */
static const char *default_handlers(void)
{
	return systemd_coredump_installed() ? "readwrite,readwrite:sparse=off,splice,kernel,cat,null,direct,"
					      "systemd-coredump"
					    : "readwrite,readwrite:sparse=off,splice,kernel,cat,null,direct";
}

/* coresink-bench --crash ARGS (argv[0] is "--crash"). */
int crash_main(int argc, char **argv)
{
	struct crash_options o = { .size = 1ULL << 30, .runs = 3, .workload = WORKLOAD_DENSE };
	const char *dir = "/var/tmp", *coresink = LIBEXECDIR "/coresink";
	static struct handler h[HANDLERS_MAX];
	static struct crash_sample s[CRASH_SAMPLES_MAX];
	static struct bench_paths p;
	pid_t sdc = 0;
	int nh, ns, r, srv = 0, taken;

	if (parse_crash_options(argc, argv, &o, &dir, &coresink) < 0)
		return crash_usage(stderr), EXIT_USAGE;
	if (geteuid() != 0)
		return fail_code(EXIT_USAGE, "needs root (kernel.core_pattern)");
	r = make_paths(dir, coresink, &p);
	if (r < 0)
		return fail_code(EXIT_SYSTEM, "%s: %s", dir, strerror(-r));
	nh = parse_handlers(o.list ? o.list : default_handlers(), &p, h);
	if (nh > 0 && nh * o.runs > CRASH_SAMPLES_MAX)
		nh = -EINVAL;
	/* The settings first: a bench refused them (another one has them) starts no server either. */
	taken = nh < 0 ? 0 : sysctl_take();
	for (int i = 0; nh > 0 && taken == 0 && i < nh && sdc == 0; i++)
		if (h[i].kind == HANDLER_SYSTEMD)
			sdc = sdc_start();
	for (int i = 0; nh > 0 && taken == 0 && i < nh && srv == 0; i++)
		if (h[i].socket)
			srv = server_start(&p, &h[i], i);
	r = nh < 0 ? EXIT_USAGE : sdc < 0 || srv < 0 || taken < 0 ? EXIT_SYSTEM : 0;
	if (taken == -EBUSY)
		fprintf(stderr, "coresink-bench: another coresink-bench --crash is running: one at a time, or the second "
			"would put back the first's kernel.core_pattern as the machine's\n");
	else if (taken < 0)
		fprintf(stderr, "coresink-bench: kernel.core_pattern: %s\n", strerror(-taken));
	if (sdc < 0)
		fprintf(stderr, "coresink-bench: cannot start systemd-coredump's socket: %s\n", strerror((int)-sdc));
	if (srv < 0)
		fprintf(stderr, "coresink-bench: cannot start coresink --serve: %s\n", strerror(-srv));
	if (r == 0) {
		header(&o, &p);
		ns = run_all(h, nh, &p, &o, s);
		sysctl_restore();
		r = ns < 0 ? EXIT_SYSTEM : report(&o, h, nh, s, ns);
	}
	sdc_stop(sdc);
	for (int i = 0; i < nh; i++)
		server_stop(&h[i]);
	(void) nftw(p.dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (nh == -EINVAL)
		crash_usage(stderr);
	return r;
}
