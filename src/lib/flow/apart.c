/*
 * apart.c: the dump and the copy on CPUs of their own, in pipe mode. The kernel writes a core in the crashing
 * thread's context, and that thread and the handler wake each other at every pipe buffer, so the scheduler often
 * runs them on one CPU, where they take turns. For the copy the dumping thread is held on the CPU it last ran on and
 * the handler takes the others, which it gets back when the copy ends; the thread exits after its dump. On 2 CPUs,
 * 1 GiB pipe-mode crashes were let go in 0.62-0.72 s against 0.68-0.86 s (dense), 0.74-0.80 against 0.78-0.95 s
 * (50 threads), the same on core-like and sparse ones (docs/benchmark.md, 2026-11-30 night). Not in socket mode:
 * its thread is known only once the core names it, and found by its flags instead it lost on the 50-thread crash
 * (1.03-1.25 s against 0.87-1.02). Best effort: with one CPU, or a thread that is not dumping, nothing changes.
 */
#include <errno.h>
#include <sched.h>

#include "capture-internal.h"
#include "intake.h"

/*
 * Holds the crash's dumping thread (pipe mode's %I) on its CPU and moves this process to the others, *mine its CPUs
 * until then (crash_together() gives them back). 0, or -errno when nothing was moved.
 */
int crash_apart(const struct crash *cr, cpu_set_t *mine)
{
	_cleanup_close_ int dirfd = -1;
	const pid_t tid = cr->given.k.tid;
	cpu_set_t one, rest;
	int cpu;

	if (cr->o.socket || tid <= 0)
		return -ESRCH;
	if (sched_getaffinity(0, sizeof(*mine), mine) < 0)
		return -errno;
	if (CPU_COUNT(mine) < 2)
		return -EXDEV;
	dirfd = proc_open(cr->given.k.pid);
	if (dirfd < 0)
		return dirfd;
	/* The task the kernel named, still dumping: not a pid reused since. */
	cpu = proc_dumping(dirfd, tid) == 1 ? proc_task_cpu(dirfd, tid) : -ESRCH;
	/* On a CPU this process may not use, the two are apart already. */
	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, mine))
		return cpu < 0 ? cpu : -EXDEV;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(tid, sizeof(one), &one) < 0)
		return -errno;
	rest = *mine;
	CPU_CLR(cpu, &rest);
	return sched_setaffinity(0, sizeof(rest), &rest) < 0 ? -errno : 0;
}

/* After the copy: this process's CPUs back, as crash_apart() found them. */
void crash_together(const cpu_set_t *mine)
{
	(void) sched_setaffinity(0, sizeof(*mine), mine);
}
