/*
 * hooks.c: CollectDirectory=, in a crash's way: the collect hooks (sandbox/collect.c) started once the crash is
 * admitted and its /proc read (begin_capture), while the kernel holds the process, and waited for, within
 * CollectTimeoutSec=, by the release of the process (crash_release), the one place that lets it go. In a storm
 * (more captures in flight than CPUs) none is started, and the entry says so: a crash loop must not become a fork
 * loop, and the captures need the CPUs.
 */
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "capture-internal.h"

/* The hooks started for the crash, or why not, in its outcome. */
void crash_collect_start(struct crash *cr)
{
	struct diag d = { 0 };
	unsigned others, cpus = (unsigned)get_nprocs();
	int r = collect_list(&cr->held.hooks, cr->c.collect_dir, &d);

	(void) report_diag(&d, "the collect hooks", r < 0 ? "none is run" : "those are not run");
	if (r <= 0)
		return;
	others = cr->held.have_session ? session_others(&cr->held.q) : 0;
	if (others + 1 > cpus) {
		(void) snprintf(cr->o.collect, sizeof(cr->o.collect), "skipped: %u captures in flight on %u CPUs",
				others + 1, cpus);
		return;
	}
	r = collect_start(&cr->held.hooks, cr->c.collect_user, (unsigned)cr->c.collect_timeout_ms, cr->given.k.pid,
			  cr->given.k.pidfd);
	if (r < 0)
		(void) snprintf(cr->o.collect, sizeof(cr->o.collect), "not run: CollectUser=%s: %s", cr->c.collect_user,
				strerror(-r));
}

/* The hooks waited for (at most until their deadline), what they printed taken into the outcome. */
void crash_collect_end(struct crash *cr)
{
	if (!cr->held.hooks.running)
		return;
	collect_wait(&cr->held.hooks);
	cr->o.hook_fields = cr->held.hooks.fields;
	cr->o.hooks_failed = cr->held.hooks.failed;
	(void) snprintf(cr->o.collect, sizeof(cr->o.collect), "%s", cr->held.hooks.said);
}
