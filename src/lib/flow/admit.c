/*
 * admit.c: the admission of a crash, the same in both modes and taken before a byte of the core is read: the [Rule]
 * that applies, RLIMIT_CORE, the directory and its ledger, the crash-rate limits.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "capture-internal.h"
#include "capture.h"
#include "intake.h"
#include "config.h"
#include "ledger.h"
#include "tidy.h"
#include "report.h"
#include "store.h"

/* Below a page no core is worth storing: the kernel itself writes none. */
#define RLIMIT_MIN PAGE_BYTES

/* The ledger failed with r: MaxUse, vacuum and the rate limits are off for this crash, and its entry says so. */
static void without_ledger(struct crash *cr, int r)
{
	diag_add(&cr->held.ledger, "%s/%s: %s", cr->c.directory, LEDGER_FILE, strerror(-r));
	if (cr->held.have_session)
		session_close(&cr->held.q);
	cr->held.have_session = false;
}

/* Opens the directory and the shared ledger. Without the ledger, MaxUse and rate limits are off for this crash. */
static int open_storage(struct crash *cr)
{
	int r;

	cr->held.dirfd = store_open_dir(cr->c.directory);
	if (cr->held.dirfd == -EPERM || cr->held.dirfd == -ENOTDIR)
		return crash_fail(cr, "refusing Directory= (a symlink or not a directory, not root's, or writable by "
				  "others)", cr->held.dirfd);
	if (cr->held.dirfd < 0)
		return crash_fail(cr, "opening the directory", cr->held.dirfd);
	r = session_open(&cr->held.q, cr->held.dirfd);
	cr->held.have_session = r == 0;
	if (r < 0)
		without_ledger(cr, r);
	return 0;
}

/*
 * For a crash about to be stored: the stored cores counted afresh in the ledger, and the crash recorded there; the
 * early log line (a handler killed mid-capture still leaves it), and the rest of what /proc tells, while the kernel
 * still holds the process.
 */
static void begin_capture(struct crash *cr)
{
	const struct procinfo_id id = crash_process_id(cr);

	/* After the record (rate_limited): a handler killed once this line is out is named by the next. */
	(void) report_start(&cr->given.k);
	/* Encrypt=: the environment often holds secrets, and the entry is plaintext (crash_store refuses the rest). */
	(void) procinfo_complete(&id, cr->c.capture_environment && cr->c.encrypt.n == 0 && !cr->c.encrypt.bad,
				 &cr->given.pi);
	/* The trace's files, from the mappings: after the release, their paths may lead elsewhere, or nowhere. */
	if (cr->c.stack_trace && cr->given.pi.trusted)
		cr->given.have_mapped = mapped_open(&id, cr->given.pi.maps, cr->given.pi.exe, &cr->given.mapped) == 0;
	crash_collect_start(cr);
}

/*
 * The crash-rate limits, and, where the crash may be stored, its record in the ledger in the same write (one of
 * the three a capture makes alone: docs/design.md). In pipe mode, a handler killed from then on is named by the
 * next one; socket mode's server names its own (by_server). In both, coresinkctl shows the capture in progress
 * from this record. Whether the crash is suppressed.
 */
static bool rate_limited(struct crash *cr)
{
	const struct rate_config rc = { cr->c.rate_interval, (uint32_t)cr->c.rate_burst,
					(uint32_t)cr->c.rate_global_burst, config_user_burst(&cr->c) };
	const struct kargs *k = &cr->given.k;
	const char *key = cr->given.pi.exe[0] ? cr->given.pi.exe : k->comm;
	struct ledger_crash me = { .pid = k->pid, .uid = (uint32_t)k->uid, .gid = (uint32_t)k->gid, .time = k->time,
				   .signal = (uint32_t)(k->signal > 0 ? k->signal : 0), .by_server = cr->o.socket };
	struct rate_verdict v;
	int r;

	(void) snprintf(me.comm, sizeof(me.comm), "%s", k->comm ? k->comm : "");
	r = cr->held.have_session ? session_admit(&cr->held.q, key, k->uid, k->time, &rc, &me, cr->o.entry_id,
					       cr->c.chunk_size, &v) : 0;
	if (r < 0)
		without_ledger(cr, r);
	if (!cr->held.have_session || r < 0)
		return false;
	cr->o.suppressed_exe = v.suppressed_exe;
	cr->o.suppressed_all = v.suppressed_all;
	if (v.allowed)
		return false;
	cr->o.result = RESULT_SUPPRESSED;
	cr->o.suppressed_by = v.by;
	return true;
}

/* What the rules match a crash on: the kernel's facts, and /proc's where it proved to be the crashed process. */
static void rule_facts(const struct crash *cr, struct rule_facts *f)
{
	const struct procinfo *pi = &cr->given.pi;
	const struct kargs *k = &cr->given.k;
	const struct container *ct = &pi->ct;

	*f = (struct rule_facts) {
		.exe = pi->exe, .comm = k->comm, .unit = pi->units.unit, .user_unit = pi->units.user_unit,
		.slice = pi->units.slice, .hostname = k->hostname, .uid = k->uid, .signal = k->signal,
		.container = pi->container || ct->machine[0] || ct->id[0], .machine = ct->machine,
		.container_id = ct->id, .container_name = ct->name, .image = ct->image, .pod_name = ct->pod_name,
		.pod_namespace = ct->pod_namespace, .pod_labels = ct->pod_labels, .labels = ct->labels,
	};
}

/*
 * The first [Rule] that matches the crash sets its keys over the config. Storage=none reads the core for the stack
 * trace only, and the trace needs no more than a minimal core.
 */
static void apply_rule(struct crash *cr)
{
	struct rule_facts f;
	int i;

	rule_facts(cr, &f);
	i = rules_pick(cr->c.rules, cr->c.n_rules, &f);
	if (i >= 0) {
		config_apply_rule(&cr->c, &cr->c.rules[i]);
		(void) snprintf(cr->o.rule, sizeof(cr->o.rule), "%s", cr->c.rules[i].name);
	}
	if (cr->c.storage == STORAGE_NONE)
		cr->c.core = CORE_MINIMAL;
	/* A core has no kernel-log form: without journald, Storage=journal keeps it as a file. */
	if (cr->c.storage == STORAGE_JOURNAL && !journal_listening()) {
		cr->c.storage = STORAGE_EXTERNAL;
		(void) snprintf(cr->o.storage_note, sizeof(cr->o.storage_note), "journald is not running");
	}
}

/*
 * The admission decision, the same in both modes, taken before a byte of the core is read: RLIMIT_CORE, the
 * storage, the crash-rate limits. A crash refused here has cost the kernel's wait (core_pipe_limit) little: its
 * brief /proc, the directory, one pass through the ledger. 1 to store it (begin_capture() done), 0 when decided
 * otherwise (cr->o says what), or -errno.
 */
int crash_admit(struct crash *cr)
{
	int r;

	apply_rule(cr);
	if (cr->given.k.rlimit < RLIMIT_MIN) {
		cr->o.result = RESULT_SKIPPED;
		return 0;
	}
	/* Nothing of the core is wanted: not even read (socket mode tells the kernel not to dump it). */
	if (cr->c.storage == STORAGE_NONE && !cr->c.stack_trace) {
		cr->o.result = RESULT_RECORDED;
		return 0;
	}
	r = open_storage(cr);
	if (r < 0)
		return r;
	if (rate_limited(cr))
		return 0;
	begin_capture(cr);
	return 1;
}
