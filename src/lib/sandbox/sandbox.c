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

/* Reads the child's output until its end, the deadline or the bound. The end it came to, or -errno. */
static int collect(int rfd, size_t max, uint64_t deadline, struct sandbox_result *res)
{
	for (;;) {
		uint64_t t = clock_us();
		struct pollfd p = { .fd = rfd, .events = POLLIN };
		ssize_t n;

		if (t >= deadline)
			return SANDBOX_TIMEOUT;
		if (poll(&p, 1, (int)((deadline - t + 999) / 1000)) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p.revents == 0)
			continue;
		if (res->len >= max)
			return SANDBOX_TOO_LONG;
		n = read(rfd, res->out + res->len, max - res->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : SANDBOX_DONE;
		res->len += (size_t)n;
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

/* Waits for the child until the deadline, then kills it. Sets how it ended unless the parent decided already. */
static void reap(pid_t pid, uint64_t deadline, int end, struct sandbox_result *res)
{
	const struct timespec tick = { 0, 1000000 };
	int status = 0;
	pid_t r;

	if (end != SANDBOX_DONE)
		kill_group(pid);
	while ((r = waitpid(pid, &status, WNOHANG)) == 0 && clock_us() < deadline)
		nanosleep(&tick, NULL);
	if (r == 0) {
		kill_group(pid);
		(void) io_waitpid(pid, &status);
		end = SANDBOX_TIMEOUT;
	}
	res->end = (enum sandbox_end)end;
	if (end == SANDBOX_DONE && WIFSIGNALED(status))
		res->end = SANDBOX_KILLED, res->code = WTERMSIG(status);
	else if (end == SANDBOX_DONE && WIFEXITED(status) && WEXITSTATUS(status) != 0)
		res->end = SANDBOX_FAILED, res->code = WEXITSTATUS(status);
}

/*
 * Runs fn(3, 4, arg) in a confined child, fd as its fd 3 and a pipe to us as 4. 0 with res filled in (however the
 * child ended), or -errno when it could not be started. res->out is to be freed with sandbox_result_free().
 */
int sandbox_run(const struct sandbox_limits *l, int fd, sandbox_fn fn, void *arg, struct sandbox_result *res)
{
	uint64_t start = clock_us(), deadline = start + (uint64_t)l->timeout_ms * 1000;
	pid_t pid, parent = getpid();
	int p[2], end;

	*res = (struct sandbox_result) { .out = malloc(HEADER + l->output_max + 1) };
	if (!res->out)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC) < 0)
		return sandbox_result_free(res), -errno;
	pid = fork();
	if (pid == 0)
		child(l, parent, fd, p[1], fn, arg);
	/* The child makes its own group too: whichever comes first, the group is there before anything is killed. */
	if (pid > 0)
		(void) setpgid(pid, pid);
	(void) close(p[1]);
	if (pid < 0) {
		int e = errno;

		(void) close(p[0]);
		sandbox_result_free(res);
		return -e;
	}
	end = collect(p[0], HEADER + l->output_max, deadline, res);
	(void) close(p[0]);
	reap(pid, deadline, end < 0 ? SANDBOX_FAILED : end, res);
	take_header(res);
	res->elapsed_us = clock_us() - start;
	return 0;
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
