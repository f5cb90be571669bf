/*
 * crash.c: what every step of one crash's way calls back into (capture.c lists the steps): the crashed process as
 * procinfo.c names it, whether the crash is its owner's to see, the release of the input (the one place that knows
 * which fd the core comes from), and the failure and status of the capture.
 */
#include <fcntl.h>
#include <unistd.h>

#include "capture-internal.h"
#include "capture.h"

/* The crashed process, as procinfo.c names it: pid, pidfd (%F), crashing thread (%I), crash time. */
struct procinfo_id crash_process_id(const struct crash *cr)
{
	return (struct procinfo_id) { cr->given.k.pid, cr->given.k.pidfd, cr->given.k.tid, cr->given.k.time };
}

/*
 * Whether the crash is its owner's to see, in their journal and in their own analysis: a regular user's process
 * (uid_is_regular: not root, a system, dynamic, nobody or container uid, all of which name no one for good),
 * dumpable by its owner, that never changed credentials (systemd-coredump's rule since CVE-2025-4598), and proven
 * to be the one that crashed.
 */
bool crash_owner_sees(const struct crash *cr)
{
	const struct crash_given *g = &cr->given;

	return g->k.dumpmode == SUID_DUMP_USER && uid_is_regular(g->k.uid) && g->pi.trusted && g->pi.creds_unchanged;
}

/*
 * Done with the input: closing it tells the kernel to stop dumping, if it has not finished, and lets the process
 * go (pipe mode with kernel.core_pipe_limit set, and socket mode, wait for exactly this). The collect hooks are
 * waited for first, within their deadline (hooks.c): they may still be reading the process. In pipe mode the input
 * is fd 0, the kernel's contract: /dev/null takes its place there, so that no later open gets fd 0.
 */
void crash_release(struct crash *cr)
{
	int fd;

	if (cr->given.in < 0)
		return;
	crash_collect_end(cr);
	cr->released_us = clock_us();
	if (cr->given.in != STDIN_FILENO) {
		fd_close(&cr->given.in);
		return;
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd > STDIN_FILENO) {
		(void) dup2(fd, STDIN_FILENO);
		fd_close(&fd);
	} else if (fd < 0) {
		fd_close(&cr->given.in);
	}
	cr->given.in = -1;
}

int crash_fail(struct crash *cr, const char *step, int r)
{
	cr->o.result = RESULT_FAILED;
	cr->o.step = step;
	cr->o.error = r;
	return r;
}

/* What an entry point returns: 0 when the crash was handled as the policy says, or the -errno r that failed it. */
int crash_status(const struct crash *cr, int r)
{
	return cr->o.result == RESULT_FAILED && r < 0 ? r : 0;
}
