/*
 * capture.c: kernel mode: one crash, from the kernel's arguments to its one journal entry. The steps: read the
 * arguments and the config (problems are logged, defaults used), skip a core RLIMIT_CORE forbids, open the
 * directory, apply the crash-rate limit, store within the limits, log. Nothing is printed: stdout is /dev/null.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basics.h"
#include "capture.h"
#include "config.h"
#include "elfcore.h"
#include "kargs.h"
#include "name.h"
#include "procinfo.h"
#include "quota.h"
#include "report.h"
#include "store.h"
#include "xattr.h"

/* Below a page no core is worth storing: the kernel itself writes none. */
#define RLIMIT_MIN PAGE_BYTES

struct job {
	struct config c;
	struct kargs k;
	struct outcome o;
	struct quota q;
	struct procinfo pi;
	bool have_quota;
	int dirfd;
	struct diag ledger;   /* problems with the shared ledger: MaxUse, vacuum and rate limits off */
};

static int fail(struct job *j, const char *step, int r)
{
	j->o.result = RESULT_FAILED;
	j->o.step = step;
	j->o.error = -r;
	return r;
}

/* Done with the input before its end: closing it tells the kernel to stop dumping, and lets the process go. */
static void drop_input(void)
{
	(void) close(STDIN_FILENO);
}

/* Opens the directory and the shared ledger. Without the ledger, MaxUse and rate limits are off for this crash. */
static int open_storage(struct job *j)
{
	int r;

	j->dirfd = store_open_dir(j->c.directory);
	if (j->dirfd == -EPERM || j->dirfd == -ENOTDIR)
		return fail(j, "refusing Directory= (a symlink or not a directory, not root's, or writable by others)",
			    j->dirfd);
	if (j->dirfd < 0)
		return fail(j, "opening the directory", j->dirfd);
	r = quota_open(&j->q, j->dirfd);
	if (r == 0)
		r = quota_begin(&j->q);
	j->have_quota = r == 0;
	if (r < 0)
		diag_add(&j->ledger, "%s/%s: %s", j->c.directory, LEDGER_FILE, strerror(-r));
	return 0;
}

static bool rate_limited(struct job *j)
{
	const struct rate_config rc = { j->c.rate_interval, (uint32_t)j->c.rate_burst,
					(uint32_t)j->c.rate_global_burst };
	struct rate_verdict v;

	if (!j->have_quota || quota_rate(&j->q, j->pi.exe[0] ? j->pi.exe : j->k.comm, j->k.time, &rc, &v) < 0)
		return false;
	j->o.suppressed_exe = v.suppressed_exe;
	j->o.suppressed_all = v.suppressed_all;
	if (v.allowed)
		return false;
	j->o.result = RESULT_SUPPRESSED;
	j->o.suppressed_by = v.by;
	return true;
}

static void engine_options(struct job *j, struct engine_opts *o, struct engine_hooks *h)
{
	/* The core's first bytes, kept as they pass: its notes say the signal's si_code. */
	static unsigned char head[ELFCORE_HEAD_MAX];

	engine_defaults(o);
	o->head = head;
	o->head_len = sizeof(head);
	o->strategy = j->c.strategy;
	o->sparse = j->c.sparse;
	o->chunk = j->c.chunk_size;
	o->keep_free = j->c.keep_free;
	o->max_use = j->c.max_use;
	o->max_core = j->c.max_core_size;
	o->rlimit = j->k.rlimit;
	o->close_on_limit = true;
	o->lock_fd = j->dirfd;
	if (j->have_quota) {
		quota_hooks(&j->q, h);
		o->hooks = h;
	}
}

/* What the copy came to: stored, truncated, or discarded (OnLimit=discard, or nothing at all to keep). */
static enum result verdict(const struct job *j, int r)
{
	if (r < 0)
		return RESULT_TRUNCATED;   /* an I/O error after some bytes: keep them */
	if (!j->o.st.truncated)
		return RESULT_STORED;
	return j->c.on_limit == ON_LIMIT_DISCARD || j->o.st.bytes == 0 ? RESULT_DISCARDED : RESULT_TRUNCATED;
}

static int publish(struct job *j, struct store_file *f)
{
	char name[NAME_MAX_LEN];
	struct stat st;
	int r;

	(void) xattr_describe(f->fd, &j->k, j->pi.exe);
	/* What the file takes with its attributes (ext4 may give them a block of their own), for MaxUse. */
	if (fstat(f->fd, &st) == 0)
		j->o.st.allocated = (uint64_t)st.st_blocks * 512;
	r = store_publish(f, j->k.comm, j->k.pid, j->k.time, name, sizeof(name));

	if (r < 0)
		return fail(j, "publishing the file", r);
	(void) snprintf(j->o.path, sizeof(j->o.path), "%s/%s", j->c.directory, name);
	if (j->have_quota)
		(void) quota_publish(&j->q, j->o.st.allocated);
	return 0;
}

/* Copies stdin into a new file within the limits, then publishes or discards it. 0 or -errno. */
static int store(struct job *j)
{
	mode_t mode = j->k.dumpmode == SUID_DUMP_USER ? j->c.file_mode : 0600;
	struct engine_opts eo;
	struct engine_hooks h;
	struct store_file f;
	int r;

	engine_options(j, &eo, &h);
	j->o.strategy = eo.strategy;
	r = store_create(j->dirfd, mode, &f);
	if (r < 0)
		return fail(j, "creating the file", r);
	r = engine_copy(STDIN_FILENO, f.fd, &eo, &j->o.st);
	j->o.have_siginfo = elfcore_siginfo(eo.head, j->o.st.head_bytes, &j->o.siginfo) == 0;
	j->o.vacuumed = j->q.removed;
	j->o.vacuumed_bytes = j->q.freed;
	if (j->o.st.bytes == 0 && (r < 0 || !j->o.st.truncated)) {
		store_discard(&f);
		return fail(j, "copying", r < 0 ? r : -ENODATA);
	}
	if (r < 0)
		(void) fail(j, "copying", r);
	j->o.result = verdict(j, r);
	if (j->o.result == RESULT_DISCARDED) {
		store_discard(&f);
		return 0;
	}
	return publish(j, &f);
}

/* Decides and stores: skipped, refused, suppressed or copied. 0, or -errno when nothing could be stored. */
static int run(struct job *j)
{
	int r;

	if (j->k.rlimit < RLIMIT_MIN) {
		j->o.result = RESULT_SKIPPED;
		drop_input();
		return 0;
	}
	r = open_storage(j);
	if (r < 0) {
		drop_input();
		return r;
	}
	if (rate_limited(j)) {
		drop_input();
		return 0;
	}
	return store(j);
}

/*
 * One crash, from the kernel's arguments to its journal entries. 0 when the crash was handled as the policy says
 * (stored, truncated, skipped, suppressed), or the -errno that kept it from being stored; logged either way.
 */
int capture_run(const char *config, bool named, int argc, char **argv)
{
	static struct job j;
	struct diag kd = { 0 }, cd = { 0 };
	int r;

	j.dirfd = -1;
	j.q.statefd = -1;
	(void) kargs_parse(argc, argv, &j.k, &kd);
	(void) report_start(&j.k);
	config_read(&j.c, config, named, &cd);
	/* Read while the crashed process still exists: it does until the core has been read. */
	(void) procinfo_read(j.k.pid, j.k.pidfd, j.k.time, j.c.capture_environment, &j.pi);
	j.o.exe = j.pi.exe;
	r = run(&j);
	(void) report_diag(&kd, "the kernel arguments", "safe defaults used, the core kept for root only");
	(void) report_diag(&cd, config, "defaults used, capture goes on");
	(void) report_diag(&j.ledger, "the ledger", "no MaxUse, vacuum or rate limit for this crash");
	(void) report_crash(&j.k, &j.o, &j.pi);
	procinfo_free(&j.pi);
	if (j.have_quota)
		quota_close(&j.q);
	if (j.dirfd >= 0)
		(void) close(j.dirfd);
	return j.o.result == RESULT_FAILED && r < 0 ? r : 0;
}
