/*
 * capture.c: one crash's way, in both modes, as a list of stages: init (the config), read the process (/proc while
 * the kernel holds it), admit (admit.c), store (keep.c: copy within the limits, keep, publish), release, finish (the
 * entry, entry.c; the upload; everything closed). pipemode.c and sockmode.c build the crash and call these in that
 * order; what the steps call back into (the release of the input, the failure) is crash.c's. Nothing is printed:
 * stdout is /dev/null.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "capture-internal.h"
#include "capture.h"
#include "intake.h"
#include "minicore.h"
#include "config.h"
#include "ledger.h"
#include "tidy.h"
#include "report.h"
#include "ship.h"
#include "store.h"

/* A random 128-bit id in hex, to find one entry by. */
static void entry_id(char *buf, size_t len)
{
	unsigned char b[16] = { 0 };

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		(void) snprintf((char *)b, sizeof(b), "%x%lx", (unsigned)getpid(), (unsigned long)time(NULL));
	for (size_t i = 0; i < sizeof(b) && 2 * i + 2 < len; i++)
		(void) snprintf(buf + 2 * i, len - 2 * i, "%02x", b[i]);
}

/*
 * A crash whose core comes from in, with the config read from config (problems kept for its entry). Its entry's id
 * is drawn now: the core carries it (xattr.c), as the record of whose core it is.
 */
void crash_init(struct crash *cr, int in, const char *config, bool named)
{
	*cr = (struct crash) { .given = { .in = in, .config = config },
			       .held = { .dirfd = -1, .corefd = -1, .memfd = -1, .q = { .statefd = -1 },
					 .mc = { .devnull = -1 }, .es = { .r = { .store = -1 } } } };
	cr->given.started_us = clock_us();
	entry_id(cr->o.entry_id, sizeof(cr->o.entry_id));
	config_read(&cr->c, config, named, &cr->cd);
}

/*
 * What every entry needs of the crashed process, from /proc while the kernel still holds it (it does until the core
 * is read); begin_capture() reads the rest for a crash that is stored.
 */
void crash_read_process(struct crash *cr)
{
	const struct procinfo_id id = crash_process_id(cr);

	(void) procinfo_read(&id, &cr->given.pi);
	crash_rootless(&cr->given.pi.ct);
	cr->o.exe = cr->given.pi.exe;
}

/*
 * A crash's way once its mode brought it: step (the mode's admission and storage), the process let go where its
 * core did not get as far as keep() (refused, failed, discarded), let_go for what the mode learns once it is gone
 * (socket mode: the signal from its exit status; NULL: nothing), then the end. The process is let go here and in
 * keep(), nowhere else. crash_status() of what step returned.
 */
int crash_handle(struct crash *cr, int (*step)(struct crash *cr), void (*let_go)(struct crash *cr))
{
	int r = step(cr);

	crash_release(cr);
	if (let_go)
		let_go(cr);
	crash_finish(cr);
	return crash_status(cr, r);
}

/*
 * After the copy, whatever came of it, the process let go: the core analysed, and everything logged, the crash in
 * its one entry (a core journald did not take published after all, and logged again). Then the raw core's last fd
 * and the ledger are closed.
 */
void crash_finish(struct crash *cr)
{
	cr->o.owner_entry = crash_owner_sees(cr);
	crash_analyse(cr);
	crash_sign(cr);
	crash_keep_modules(cr);
	if (cr->given.have_mapped)
		mapped_free(&cr->given.mapped);
	(void) report_diag(&cr->given.kd, "the kernel arguments", "safe defaults used, the core kept for root only");
	(void) report_diag(&cr->cd, cr->given.config, "defaults used, capture goes on");
	(void) report_diag(&cr->held.ledger, "the ledger", "no MaxUse, vacuum or rate limit for this crash");
	if (crash_log(cr) == -EMSGSIZE) {
		/* journald did not take the core: it is published as a file after all, and the entry sent without it. */
		cr->held.have_unpublished = false;
		(void) crash_publish(cr, &cr->held.unpublished, false);
		(void) report_crash(&cr->given.k, &cr->o, &cr->given.pi, &cr->a, -1);
	}
	/*
	 * Its entry is out. The ledger is not told so (a write less): whoever finds this handler dead from here on looks
	 * for the entry by its id first (crash_entry_out), finds it, and names nothing.
	 */
	crash_count(cr);
	crash_report_orphans(cr);
	crash_upload(cr);
	analysis_free(&cr->a);
	collect_free(&cr->held.hooks);
	procinfo_free(&cr->given.pi);
	if (cr->held.have_unpublished)
		store_discard(&cr->held.unpublished);
	minicore_free(&cr->held.mc);
	crash_stacks_free(cr);
	fd_close(&cr->held.memfd);
	config_free(&cr->c);
	/* The raw core's blocks go with its last fd; only then may the ledger stop counting them. */
	fd_close(&cr->held.corefd);
	crash_end_session(cr);
	fd_close(&cr->held.dirfd);
}
