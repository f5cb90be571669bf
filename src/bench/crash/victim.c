/*
 * victim.c: the process coresink-bench --crash crashes, forked from the bench itself (no other binary). It maps
 * its workload (the pattern of pattern.h, with zero pages or idle threads as a real process has), says where, waits
 * for "go" so that the bench can drop caches and take its baselines while nothing happens, then notes the time and
 * dies of SIGSEGV. The time is CLOCK_MONOTONIC, the clock the bench stops with.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "pattern.h"
#include "victim.h"

/* Idle threads of the threads workload, each with its own stack, as the 50-thread Python case. */
#define VICTIM_THREADS 50

static const char *const workload_names[] = {
	[WORKLOAD_DENSE] = "dense",
	[WORKLOAD_CORE] = "core",
	[WORKLOAD_THREADS] = "threads",
	[WORKLOAD_SPARSE] = "sparse",
};

DEFINE_STRING_TABLE_LOOKUP(workload, enum workload, workload_names, _WORKLOAD_MAX)

/* One page in three zero for core-like memory, nine in ten for sparse; threads and dense none. */
unsigned workload_zero_percent(enum workload w)
{
	return w == WORKLOAD_CORE ? 33 : w == WORKLOAD_SPARSE ? 90 : 0;
}

static void *idle(void *arg)
{
	(void) arg;
	for (;;)
		pause();
	return NULL;
}

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Where the victim stores to die of SIGSEGV: a pointer nobody sets, at file scope and volatile, so that neither
 * the compiler nor clang's analyzer takes the store for a mistake to remove or report: it is the point.
 */
static volatile int *volatile nowhere;

/* The victim's side: never returns. */
static _Noreturn void victim_main(int go, int report, enum workload w, uint64_t bytes)
{
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	unsigned zero = workload_zero_percent(w);
	uint64_t *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t where[2];
	double t;
	char c;

	(void) prctl(PR_SET_NAME, "bench-victim", 0, 0, 0);
	if (p == MAP_FAILED || setrlimit(RLIMIT_CORE, &unlimited) < 0)
		_exit(EXIT_SYSTEM);
	for (unsigned i = 0; w == WORKLOAD_THREADS && i < VICTIM_THREADS; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, idle, NULL) != 0)
			_exit(EXIT_SYSTEM);
	}
	/* Zero pages are never touched, as most of a real process's memory. */
	for (uint64_t i = 0; i < bytes / 8; i++)
		if (!pattern_zero_page(i / 512, zero))
			p[i] = pattern_word(i);
	where[0] = (uint64_t)(uintptr_t)p;
	where[1] = bytes;
	if (io_write_full(report, where, sizeof(where)) < 0 || io_read_full(go, &c, 1, NULL) != 1)
		_exit(EXIT_SYSTEM);
	t = monotonic();
	(void) io_write_full(report, &t, sizeof(t));
	*nowhere = (int)p[0];
	_exit(EXIT_SYSTEM);   /* not reached */
}

/*
 * Forks a victim holding bytes of workload w and waits until it is ready. Must be called while the bench has no
 * other thread. 0 or -errno.
 */
int victim_start(struct victim *v, enum workload w, uint64_t bytes)
{
	int go[2], report[2];
	uint64_t where[2];

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(report, O_CLOEXEC) < 0) {
		int e = errno;

		(void) close(go[0]);
		(void) close(go[1]);
		return -e;
	}
	v->pid = fork();
	if (v->pid < 0) {
		int e = errno;

		(void) close(go[0]), (void) close(go[1]), (void) close(report[0]), (void) close(report[1]);
		return -e;
	}
	if (v->pid == 0) {
		(void) close(go[1]);
		(void) close(report[0]);
		signal(SIGSEGV, SIG_DFL);
		victim_main(go[0], report[1], w, bytes);
	}
	(void) close(go[0]);
	(void) close(report[1]);
	v->go = go[1];
	v->report = report[0];
	v->zero_percent = workload_zero_percent(w);
	v->on_cpu = v->runq = -1;
	if (io_read_full(v->report, where, sizeof(where), NULL) != (ssize_t)sizeof(where))
		return victim_reap(v), -EIO;   /* it could not map or fill its memory */
	v->addr = where[0];
	v->bytes = where[1];
	return 0;
}

/* The victim's time on a CPU and waiting for one, in seconds (/proc/PID/schedstat). 0 or -errno. */
static int sched_times(pid_t pid, double *on_cpu, double *waiting)
{
	char path[64], text[128];
	unsigned long long run, delay;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	r = io_read_text(path, text, sizeof(text));
	if (r < 0)
		return r;
	if (sscanf(text, "%llu %llu", &run, &delay) != 2)
		return -EINVAL;
	*on_cpu = (double)run / 1e9;
	*waiting = (double)delay / 1e9;
	return 0;
}

/* Lets the victim crash, and waits until it is gone: with kernel.core_pipe_limit set, until its handler is. */
int victim_crash(struct victim *v, double *crashed_at)
{
	int status, r;
	double c0 = -1, d0 = 0, c1, d1;

	/* It sleeps until "go": its times now are those before the crash. */
	(void) sched_times(v->pid, &c0, &d0);
	if (io_write_full(v->go, "g", 1) < 0 ||
	    io_read_full(v->report, crashed_at, sizeof(*crashed_at), NULL) != (ssize_t)sizeof(*crashed_at))
		return victim_reap(v), -EIO;
	/* Its times are read while it is a zombie: waited for, not yet reaped. */
	r = io_wait_ended(v->pid);
	if (r == 0 && c0 >= 0 && sched_times(v->pid, &c1, &d1) == 0) {
		v->on_cpu = c1 - c0;
		v->runq = d1 - d0;
	}
	r = io_waitpid(v->pid, &status);
	if (r < 0)
		return r;
	v->pid = 0;
	(void) close(v->go);
	(void) close(v->report);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV ? 0 : -ECHILD;
}

/*
 * Of the released seconds from its fault to its end, how long the dumping thread slept (*held: the kernel waited for
 * the handler to take the core, or to let it go) and how long it was runnable and waited for a CPU (*runq); the rest
 * it ran (the kernel writing its core, then its exit). -1 each when /proc said nothing.
 */
void victim_held(const struct victim *v, double released, double *held, double *runq)
{
	double asleep = released - v->on_cpu - v->runq;

	*held = *runq = -1;
	if (v->on_cpu < 0)
		return;
	*held = asleep > 0 ? asleep : 0;
	*runq = v->runq;
}

/* Ends a victim that is not to crash (an error on our side). Always 0. */
int victim_reap(struct victim *v)
{
	int status;

	if (v->pid > 0) {
		(void) kill(v->pid, SIGKILL);
		(void) io_waitpid(v->pid, &status);
	}
	v->pid = 0;
	(void) close(v->go);
	(void) close(v->report);
	return 0;
}
