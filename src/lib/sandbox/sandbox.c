/*
 * sandbox.c: runs a function over hostile input (a crafted core, crafted binaries) in a forked child that can do
 * little harm: only the input fd and its output pipe open, no environment (no debuginfod over the network),
 * limited in what it may map and allocate, in CPU time, in file size (0: it writes no file), confined as confine.c
 * says (an unprivileged user, namespaces, no capabilities, not dumpable, seccomp), and killed by the parent past a
 * wall-clock deadline, when its output grows past a bound, or when the parent dies. The parent learns how it ended,
 * what confined it and what it wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "confine.h"
#include "sandbox.h"

/* libdwfl keeps a file open per module: so many by their paths, besides a copy of each handed one. */
#define CHILD_NOFILE 512

/*
 * AddressSanitizer reserves terabytes of address space and maps its allocator's memory as it goes: under a memory
 * limit every allocation of a sanitized child fails. The sanitizer builds (tests only) limit time, not memory.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static const char *const sandbox_end_names[] = {
	[SANDBOX_DONE] = "done",
	[SANDBOX_FAILED] = "failed",
	[SANDBOX_KILLED] = "killed",
	[SANDBOX_TIMEOUT] = "timed out",
	[SANDBOX_TOO_LONG] = "output too long",
};

_Static_assert(ELEMENTSOF(sandbox_end_names) == SANDBOX_TOO_LONG + 1, "sandbox_end_names must name every end");

/* Whether this build limits the child's memory (not under AddressSanitizer). */
bool sandbox_limits_memory(void)
{
	return !SANITIZED;
}

const char *sandbox_end_to_string(enum sandbox_end e)
{
	return (unsigned)e < ELEMENTSOF(sandbox_end_names) ? sandbox_end_names[e] : "?";
}

static int limit(int resource, uint64_t value)
{
	const struct rlimit rl = { value, value };

	return setrlimit(resource, &rl);
}

/* Raises resource's limit to value where it is below: the hard limit too, which root may. 0 or -1. */
static int limit_at_least(int resource, rlim_t value)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) < 0)
		return -1;
	if (rl.rlim_cur >= value)
		return 0;
	rl.rlim_cur = value;
	if (rl.rlim_max < value)
		rl.rlim_max = value;
	return setrlimit(resource, &rl);
}

/* Its limits: what it may map and allocate, CPU time, no file written, no core, few fds. 0 or -1. */
static int set_limits(const struct sandbox_limits *l)
{
	/* A program to exec brings its own needs (Go's runtime reserves far more than it maps): CPU and fds bound it. */
	if (l->exec)
		return limit(RLIMIT_CPU, l->cpu_seconds) < 0 || limit(RLIMIT_CORE, 0) < 0 ? -1 : 0;
	if (!SANITIZED && (limit(RLIMIT_AS, l->address_space) < 0 || limit(RLIMIT_DATA, l->data) < 0))
		return -1;
	if (limit(RLIMIT_CPU, l->cpu_seconds) < 0 || limit(RLIMIT_FSIZE, 0) < 0 || limit(RLIMIT_CORE, 0) < 0 ||
	    limit(RLIMIT_NOFILE, SANDBOX_FIRST_FD + 2 * l->n_fds + CHILD_NOFILE) < 0)
		return -1;
	return 0;
}

/*
 * In the child: its fds where sandbox.h says (input, output, root, the files handed), /dev/null at 0-2, nothing
 * else: each is copied above them all first, so that no move overwrites one not yet moved. 0 or -1.
 */
static int place_fds(const struct sandbox_limits *l, int fd, int out)
{
	int hi[SANDBOX_FIRST_FD + SANDBOX_FDS_MAX], top = SANDBOX_FIRST_FD + (int)l->n_fds;
	int null = open("/dev/null", O_RDWR);

	if (null < 0 || l->n_fds > SANDBOX_FDS_MAX)
		return -1;
	/* Room for the copies: a helper the kernel starts may open 1024 fds, and 512 handed take twice that here. */
	if (limit_at_least(RLIMIT_NOFILE, 2 * (rlim_t)top + 16) < 0)
		return -1;
	for (int t = 0; t < top; t++) {
		int src = t == SANDBOX_IN_FD ? fd : t == SANDBOX_OUT_FD ? out : t == SANDBOX_ROOT_FD ? l->root_fd :
			  t >= SANDBOX_FIRST_FD ? l->fds[t - SANDBOX_FIRST_FD] : null;

		hi[t] = src >= 0 ? fcntl(src, F_DUPFD_CLOEXEC, top) : -1;
		if (src >= 0 && hi[t] < 0)
			return -1;
	}
	for (int t = 0; t < top; t++)
		if (hi[t] >= 0 ? dup2(hi[t], t) < 0 : close(t) < 0 && errno != EBADF)
			return -1;
	return close_range((unsigned)top, ~0U, 0) < 0 ? -1 : 0;
}

/* In the child: its fds placed, limited and confined; then it tells its parent what confined it and runs fn. */
static _Noreturn void child(const struct sandbox_limits *l, pid_t parent, int fd, int out, sandbox_fn fn, void *arg)
{
	unsigned confined;

	if (place_fds(l, fd, out) < 0)
		_exit(EXIT_SYSTEM);
	for (int sig = 1; sig < NSIG; sig++)
		(void) signal(sig, SIG_DFL);
	/* A group of its own: a program it execs, and whatever that starts, is killed as one at the deadline. */
	(void) setpgid(0, 0);
	if (set_limits(l) < 0 || clearenv() != 0 ||
	    (l->exec ? confine_exec(l, parent, &confined) : confine(l, parent, &confined)) < 0)
		_exit(EXIT_SYSTEM);
	if (io_write_full(SANDBOX_OUT_FD, &confined, sizeof(confined)) < 0)
		_exit(EXIT_SYSTEM);
	_exit(fn(SANDBOX_IN_FD, SANDBOX_OUT_FD, arg) == 0 ? 0 : 1);
}

/* The word the child writes first: what confined it. */
#define HEADER sizeof(unsigned)

/*
 * Reads the child's output until its end, the deadline or the bound. Its end is the pipe's (every writer gone) or,
 * with its pidfd, its exit once what it wrote is read: a process it left behind holding the pipe does not keep us
 * waiting (reap() kills it with the group). What is there to read is read even past the deadline: a child that ended
 * in time is not taken as timed out because we came to it late. The end it came to, or -errno.
 */
static int collect(int rfd, int pidfd, size_t max, uint64_t deadline, struct sandbox_result *res)
{
	bool exited = false;

	for (;;) {
		struct pollfd p[2] = { { .fd = rfd, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
		uint64_t t = clock_us();
		int wait = exited || t >= deadline ? 0 : (int)((deadline - t + 999) / 1000), n;
		ssize_t got;

		n = poll(p, pidfd >= 0 ? 2 : 1, wait);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		exited |= p[1].revents != 0;
		if (p[0].revents == 0) {
			if (exited)
				return SANDBOX_DONE;
			if (clock_us() >= deadline)
				return SANDBOX_TIMEOUT;
			continue;
		}
		if (res->len >= max)
			return SANDBOX_TOO_LONG;
		got = read(rfd, res->out + res->len, max - res->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : SANDBOX_DONE;
		res->len += (size_t)got;
	}
}

/* Takes the child's first word off its output: what confined it (none, when it did not get that far). */
static void take_header(struct sandbox_result *res)
{
	if (res->len >= HEADER) {
		memcpy(&res->confined, res->out, HEADER);
		res->len -= HEADER;
		memmove(res->out, res->out + HEADER, res->len);
	} else {
		res->len = 0;
	}
	res->out[res->len] = '\0';
}

/* Kills the child and its group (what a program it exec'd started). */
static void kill_group(pid_t pid)
{
	(void) kill(-pid, SIGKILL);
	(void) kill(pid, SIGKILL);
}

/*
 * Waits for the child until the deadline, then kills it; what its group still holds goes too, before the child is
 * reaped (until then its group's id cannot be anybody else's). Sets how it ended unless the parent decided already.
 */
static void reap(pid_t pid, uint64_t deadline, int end, struct sandbox_result *res)
{
	const struct timespec tick = { 0, 1000000 };
	siginfo_t si = { 0 };
	int status = 0;

	if (end != SANDBOX_DONE)
		kill_group(pid);
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0 &&
	       clock_us() < deadline)
		nanosleep(&tick, NULL);
	if (end == SANDBOX_DONE && si.si_pid == 0)
		end = SANDBOX_TIMEOUT;
	kill_group(pid);
	(void) io_waitpid(pid, &status);
	res->end = (enum sandbox_end)end;
	if (end == SANDBOX_DONE && WIFSIGNALED(status))
		res->end = SANDBOX_KILLED, res->code = WTERMSIG(status);
	else if (end == SANDBOX_DONE && WIFEXITED(status) && WEXITSTATUS(status) != 0)
		res->end = SANDBOX_FAILED, res->code = WEXITSTATUS(status);
}

/*
 * Starts fn(3, 4, arg) in a confined child, fd as its fd 3 and a pipe to us as 4, its deadline l->timeout_ms from
 * now; sandbox_end() waits for it. 0, or -errno when it could not be started.
 */
int sandbox_start(const struct sandbox_limits *l, int fd, sandbox_fn fn, void *arg, struct sandbox_child *c)
{
	pid_t parent = getpid();
	int p[2];

	*c = (struct sandbox_child) { .pid = -1, .rfd = -1, .pidfd = -1, .max = HEADER + l->output_max,
				      .start = clock_us() };
	c->deadline = c->start + (uint64_t)l->timeout_ms * 1000;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	c->pid = fork();
	if (c->pid == 0)
		child(l, parent, fd, p[1], fn, arg);
	/* The child makes its own group too: whichever comes first, the group is there before anything is killed. */
	if (c->pid > 0)
		(void) setpgid(c->pid, c->pid);
	(void) close(p[1]);
	if (c->pid < 0) {
		int e = errno;

		(void) close(p[0]);
		return -e;
	}
	c->rfd = p[0];
	if (l->watch_exit)
		c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	return 0;
}

/*
 * Waits for a child sandbox_start() started: its output read until its end, its deadline or its bound, then it is
 * reaped. res is filled in however it ended; res->out is to be freed with sandbox_result_free(). 0 or -ENOMEM.
 */
int sandbox_end(struct sandbox_child *c, struct sandbox_result *res)
{
	const uint64_t start = c->start;
	int end;

	*res = (struct sandbox_result) { .out = malloc(c->max + 1) };
	end = res->out ? collect(c->rfd, c->pidfd, c->max, c->deadline, res) : SANDBOX_FAILED;
	(void) close(c->rfd);
	reap(c->pid, c->deadline, end < 0 ? SANDBOX_FAILED : end, res);
	fd_close(&c->pidfd);
	*c = (struct sandbox_child) { .pid = -1, .rfd = -1, .pidfd = -1 };
	if (!res->out)
		return -ENOMEM;
	take_header(res);
	res->elapsed_us = clock_us() - start;
	return 0;
}

/*
 * Runs fn(3, 4, arg) in a confined child, fd as its fd 3 and a pipe to us as 4. 0 with res filled in (however the
 * child ended), or -errno when it could not be started. res->out is to be freed with sandbox_result_free().
 */
int sandbox_run(const struct sandbox_limits *l, int fd, sandbox_fn fn, void *arg, struct sandbox_result *res)
{
	struct sandbox_child c;
	int r = sandbox_start(l, fd, fn, arg, &c);

	*res = (struct sandbox_result) { 0 };
	return r < 0 ? r : sandbox_end(&c, res);
}

/*
 * How a run of an admin's program ended, in words, as the entries of the notifiers and the collect hooks say it:
 * "done in N ms", "failed (exit status N)", "failed (signal N)", "timed out, killed", "output too long, killed".
 */
void sandbox_ending(const struct sandbox_result *res, char *buf, size_t len)
{
	if (res->end == SANDBOX_DONE)
		(void) snprintf(buf, len, "done in %llu ms", (unsigned long long)res->elapsed_us / 1000);
	else if (res->end == SANDBOX_FAILED || res->end == SANDBOX_KILLED)
		(void) snprintf(buf, len, "failed (%s %d)", res->end == SANDBOX_FAILED ? "exit status" : "signal",
				res->code);
	else
		(void) snprintf(buf, len, "%s, killed", sandbox_end_to_string(res->end));
}

/* What confined the child, in words ("none" when nothing did). */
void sandbox_confinement_text(unsigned confined, char *buf, size_t len)
{
	static const char *const names[] = { "unprivileged", "namespaces", "read-only", "seccomp", "process-root" };
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(names) && n < len; i++)
		if (confined & (1U << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", names[i]);
	if (n == 0)
		(void) snprintf(buf, len, "none");
}

void sandbox_result_free(struct sandbox_result *res)
{
	free(res->out);
	res->out = NULL;
	res->len = 0;
}
