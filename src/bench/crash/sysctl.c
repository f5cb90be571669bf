/*
 * sysctl.c: kernel.core_pattern and kernel.core_pipe_limit for the length of a crash benchmark. sysctl_take()
 * saves both and makes sure they are written back at exit and on SIGINT, SIGTERM and SIGHUP: a benchmark that
 * leaves the machine's crashes going to a scratch directory would be worse than none. The restore writes saved
 * bytes with open/write/close only, which a signal handler may call. One benchmark at a time (BENCH_LOCK): a second
 * one would save the first's settings as the machine's and put those back (two run at once here left the machine's
 * crashes going to a scratch directory's socket that no longer was, and core_pipe_limit at 16).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base.h"
#include "sysctl.h"

#define CORE_PATTERN "/proc/sys/kernel/core_pattern"
#define PIPE_LIMIT "/proc/sys/kernel/core_pipe_limit"
/* Held while the settings are the benchmark's; the kernel lets it go with the process, however that ends. */
#define BENCH_LOCK "/run/coresink-bench.lock"

/* The pipe handler is waited for, so that the crashed process exits only once its core is stored. */
#define BENCH_PIPE_LIMIT "16\n"

static char saved_pattern[256], saved_limit[32];
static volatile sig_atomic_t taken;

void sysctl_restore(void)
{
	if (!taken)
		return;
	(void) io_write_text(CORE_PATTERN, saved_pattern, strlen(saved_pattern));
	(void) io_write_text(PIPE_LIMIT, saved_limit, strlen(saved_limit));
	taken = 0;
}

static void on_signal(int sig)
{
	sysctl_restore();
	signal(sig, SIG_DFL);
	(void) raise(sig);
}

/* The lock of the one benchmark that may change the settings. 0, -EBUSY while another holds it, or -errno. */
static int take_lock(void)
{
	static int fd = -1;

	fd = open(BENCH_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	return errno == EWOULDBLOCK ? -EBUSY : -errno;
}

/*
 * Saves both settings, arranges their restore, and sets the pipe limit. 0, -EBUSY (another benchmark has them), or
 * -errno.
 */
int sysctl_take(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	int r = take_lock();

	if (r == 0)
		r = io_read_text(CORE_PATTERN, saved_pattern, sizeof(saved_pattern));

	if (r == 0)
		r = io_read_text(PIPE_LIMIT, saved_limit, sizeof(saved_limit));
	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_signal);
	taken = 1;
	(void) atexit(sysctl_restore);
	return io_write_text(PIPE_LIMIT, BENCH_PIPE_LIMIT, strlen(BENCH_PIPE_LIMIT));
}

int sysctl_core_pattern(const char *pattern)
{
	return io_write_text(CORE_PATTERN, pattern, strlen(pattern));
}
