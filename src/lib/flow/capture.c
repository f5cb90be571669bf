/*
 * capture.c: one crash's way, in both modes, from its admission to its one journal entry: admit (RLIMIT_CORE, the
 * directory, the crash-rate limit), copy within the limits, keep (compress), publish, finish (let the process go,
 * analyse, log). pipemode.c and sockmode.c build the crash; nothing here knows which fd the core comes from but
 * crash_release(). Nothing is printed: stdout is /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "analyse.h"
#include "base.h"
#include "capture.h"
#include "intake.h"
#include "minicore.h"
#include "policy.h"
#include "report.h"
#include "ship.h"
#include "store.h"
#include "write.h"

/* The shortest run of zero pages a core to be compressed leaves as a hole (see engine_options). */
#define RAW_MIN_HOLE (64 * 1024)

/* zstd's level for stored cores (README: Benchmark, compression), and the read buffer that feeds it. */
#define COMPRESS_LEVEL 1
#define COMPRESS_BUFFER (256 * 1024)
#define COMPRESS_PROBE (64ULL << 20)
#define COMPRESS_PROBE_PCT 90

/* Below a page no core is worth storing: the kernel itself writes none. */
#define RLIMIT_MIN PAGE_BYTES

int crash_fail(struct crash *cr, const char *step, int r)
{
	cr->o.result = RESULT_FAILED;
	cr->o.step = step;
	cr->o.error = -r;
	return r;
}

/*
 * Done with the input: closing it tells the kernel to stop dumping, if it has not finished, and lets the process
 * go (pipe mode with kernel.core_pipe_limit set, and socket mode, wait for exactly this). In pipe mode the input is
 * fd 0, the kernel's contract: /dev/null takes its place there, so that no later open gets fd 0.
 */
void crash_release(struct crash *cr)
{
	int fd;

	if (cr->in < 0)
		return;
	if (cr->in != STDIN_FILENO) {
		(void) close(cr->in);
		cr->in = -1;
		return;
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd > STDIN_FILENO) {
		(void) dup2(fd, STDIN_FILENO);
		(void) close(fd);
	} else if (fd < 0) {
		(void) close(STDIN_FILENO);
	}
	cr->in = -1;
}

/* The crashed process, as procinfo.c names it: pid, pidfd (%F), crashing thread (%I), crash time. */
static struct procinfo_id process_id(const struct crash *cr)
{
	return (struct procinfo_id) { cr->k.pid, cr->k.pidfd, cr->k.tid, cr->k.time };
}

/* The ledger failed with r: MaxUse, vacuum and the rate limits are off for this crash, and its entry says so. */
static void without_ledger(struct crash *cr, int r)
{
	diag_add(&cr->ledger, "%s/%s: %s", cr->c.directory, LEDGER_FILE, strerror(-r));
	if (cr->have_session)
		session_close(&cr->q);
	cr->have_session = false;
}

/* Opens the directory and the shared ledger. Without the ledger, MaxUse and rate limits are off for this crash. */
static int open_storage(struct crash *cr)
{
	int r;

	cr->dirfd = store_open_dir(cr->c.directory);
	if (cr->dirfd == -EPERM || cr->dirfd == -ENOTDIR)
		return crash_fail(cr, "refusing Directory= (a symlink or not a directory, not root's, or writable by "
				  "others)", cr->dirfd);
	if (cr->dirfd < 0)
		return crash_fail(cr, "opening the directory", cr->dirfd);
	r = session_open(&cr->q, cr->dirfd);
	cr->have_session = r == 0;
	if (r < 0)
		without_ledger(cr, r);
	return 0;
}

/*
 * For a crash about to be stored: the early log line (a handler killed mid-capture still leaves it), the stored
 * cores counted afresh in the ledger, and the rest of what /proc tells, while the kernel still holds the process.
 */
static void begin_capture(struct crash *cr)
{
	const struct procinfo_id id = process_id(cr);
	int r;

	(void) report_start(&cr->k);
	r = cr->have_session ? session_begin(&cr->q) : 0;
	if (r < 0)
		without_ledger(cr, r);
	(void) procinfo_complete(&id, cr->c.capture_environment, &cr->pi);
}

static bool rate_limited(struct crash *cr)
{
	const struct rate_config rc = { cr->c.rate_interval, (uint32_t)cr->c.rate_burst,
					(uint32_t)cr->c.rate_global_burst };
	const char *key = cr->pi.exe[0] ? cr->pi.exe : cr->k.comm;
	struct rate_verdict v;

	if (!cr->have_session || session_rate(&cr->q, key, cr->k.time, &rc, &v) < 0)
		return false;
	cr->o.suppressed_exe = v.suppressed_exe;
	cr->o.suppressed_all = v.suppressed_all;
	if (v.allowed)
		return false;
	cr->o.result = RESULT_SUPPRESSED;
	cr->o.suppressed_by = v.by;
	return true;
}

static void engine_options(struct crash *cr, struct engine_opts *o, struct engine_hooks *h)
{
	/* The core's first bytes, kept as they pass: its notes say the signal's si_code. */
	static unsigned char head[ELFCORE_HEAD_MAX];

	engine_defaults(o);
	o->head = head;
	o->head_len = sizeof(head);
	o->strategy = cr->c.strategy;
	o->sparse = cr->c.sparse;
	/*
	 * A core to be compressed is stored for a moment only: single zero pages between data, which cost ext4 an
	 * extent each (1 GiB with a zero page in three: 2.2 s sparse against 0.8 s dense, measured), are written;
	 * the long runs that make most of a real core's zeros (idle stacks, untouched heap) stay holes.
	 */
	o->min_hole = cr->c.compress ? RAW_MIN_HOLE : PAGE_BYTES;
	o->chunk = cr->c.chunk_size;
	/*
	 * Socket mode only: the kernel's socket holds 208 KiB of the core in flight, and stops while the handler waits
	 * for the disk. The pipe holds 1 MiB, and a thread there cost more CPU than it saved (README: read-ahead).
	 */
	o->read_ahead = cr->o.socket ? (unsigned)(cr->c.read_ahead / o->buffer) : 0;
	o->keep_free = cr->c.keep_free;
	o->max_use = cr->c.max_use;
	o->max_core = cr->c.max_core_size;
	o->rlimit = cr->k.rlimit;
	/* A file core that would be cut for want of room is compressed as it comes: it may then be kept whole. */
	if (cr->c.compress && cr->c.storage == STORAGE_EXTERNAL && cr->c.core == CORE_FULL)
		o->compress_short = COMPRESS_LEVEL;
	o->compress_workers = (int)cr->c.compress_threads;
	if (cr->have_session) {
		session_hooks(&cr->q, h);
		o->hooks = h;
	}
}

/* What the copy came to: stored, truncated, or discarded (OnLimit=discard, or nothing at all to keep). */
static enum result verdict(const struct crash *cr, int r)
{
	if (r < 0)
		return RESULT_TRUNCATED;   /* an I/O error after some bytes: keep them */
	if (!cr->o.st.truncated)
		return RESULT_STORED;
	return cr->c.on_limit == ON_LIMIT_DISCARD || cr->o.st.bytes == 0 ? RESULT_DISCARDED : RESULT_TRUNCATED;
}

/*
 * Whether the crash is its owner's to see, in their journal and in their own analysis: a regular user's process
 * (uid_is_regular: not root, a system, dynamic, nobody or container uid, all of which name no one for good),
 * dumpable by its owner, that never changed credentials (systemd-coredump's rule since CVE-2025-4598), and proven
 * to be the one that crashed.
 */
static bool owner_sees(const struct crash *cr)
{
	return cr->k.dumpmode == SUID_DUMP_USER && uid_is_regular(cr->k.uid) && cr->pi.trusted && cr->pi.creds_unchanged;
}

/* Whether the owner may also read the core itself: only where the kernel's pidfd (%F) proved who crashed. */
static bool owner_may_read(struct crash *cr)
{
	if (!owner_sees(cr))
		return false;
	if (!cr->pi.by_pidfd)
		cr->o.acl_none = "the kernel gave no pidfd (%F) to prove whose crash it was";
	return cr->pi.by_pidfd;
}

/*
 * Publishes f, the raw core or its compressed copy, with its attributes and the owner's access; the raw core stays
 * open (corefd) for the analysis. 0 or -errno.
 */
static int publish(struct crash *cr, struct store_file *f, bool compressed)
{
	char name[NAME_MAX_LEN];
	struct stat st;
	int r;

	(void) xattr_describe(f->fd, &cr->k, cr->pi.exe);
	if (owner_may_read(cr)) {
		r = owner_grant(f->fd, cr->k.uid);
		cr->o.acl_error = r < 0 ? -r : 0;
		cr->o.acl = r == 0;
	}
	/* What the file takes with its attributes (ext4 may give them a block of their own), for MaxUse. */
	if (fstat(f->fd, &st) < 0)
		st = (struct stat) { .st_ino = 0 };
	cr->o.disk = (uint64_t)st.st_blocks * 512;
	/* The analysis reads the raw core once it has its name: no vacuum may take it before it is done. */
	if (!compressed && cr->have_session && st.st_ino)
		(void) session_hold(&cr->q, (uint64_t)st.st_ino);
	r = store_publish(f, cr->k.comm, cr->k.pid, cr->k.time, compressed, name, sizeof(name));
	if (r < 0)
		return crash_fail(cr, "publishing the file", r);
	(void) snprintf(cr->o.path, sizeof(cr->o.path), "%s/%s", cr->c.directory, name);
	/* A compressed core's raw one, read by the analysis, is on disk until then: the others count it. */
	if (cr->have_session)
		(void) session_publish(&cr->q, cr->o.disk, compressed && !cr->o.st.compressed ? cr->o.st.allocated : 0);
	return 0;
}

/*
 * Compresses the stored raw core into a second hidden file with the same engine and limits: it counts what both
 * take while they are side by side (held_base). 0, or -errno with the compressed file gone, when it could not be
 * made whole (a limit, an error): the raw core is then published instead, as it is complete.
 */
static int compress(struct crash *cr, struct store_file *raw, mode_t mode, struct store_file *z)
{
	struct engine_opts eo;
	struct engine_hooks h;
	struct timespec t0, t1;
	int r;

	r = store_create(cr->dirfd, mode, z);
	if (r < 0)
		return r;
	engine_options(cr, &eo, &h);
	eo.head = NULL;
	eo.compress = COMPRESS_LEVEL;
	/* zstd keeps its own window: a smaller read buffer keeps the handler within its memory bound (README). */
	eo.buffer = COMPRESS_BUFFER;
	/*
	 * In the handler's own thread: reading the raw core back from the disk is what this copy waits for (3.27 s
	 * for 1 GiB core-like with two zstd threads or none, README), and zstd's threads would take 28 MiB of RSS.
	 */
	eo.compress_workers = 0;
	eo.held_base = cr->o.st.allocated;
	/* Data that shrinks by less than a tenth in its first 64 MiB is not worth a second copy: the raw core stays. */
	eo.probe = COMPRESS_PROBE;
	eo.probe_pct = COMPRESS_PROBE_PCT;
	eo.baseline = cr->o.st.baseline;
	/* Size limits were applied to the core as it came; the input is a file here, not the kernel's pipe. */
	eo.max_core = eo.rlimit = UINT64_MAX;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = lseek(raw->fd, 0, SEEK_SET) < 0 ? -errno : engine_copy(raw->fd, z->fd, &eo, &cr->o.zst);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr->o.compress_us = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000);
	if (r == 0 && cr->o.zst.truncated)
		r = -ENOSPC;
	if (r < 0)
		store_discard(z);
	return r;
}

/*
 * Publishes the core, and lets the crashed process go: uncompressed, once the file has its name (a moment later);
 * compressed, before the compression, which may take seconds. The raw core stays open for the analysis, marked as
 * held in the ledger (publish()) so that no vacuum removes it meanwhile. 0 or -errno.
 */
static int keep(struct crash *cr, struct store_file *raw, mode_t mode)
{
	struct store_file z;
	int r;

	if (cr->o.st.compressed) {
		/* Compressed as it came, as the raw core did not fit: there is no raw core for the analysis to read. */
		(void) snprintf(cr->a.why, sizeof(cr->a.why), "not made: the core was compressed as it came, as it "
				"did not fit the room uncompressed");
		r = publish(cr, raw, true);
		crash_release(cr);
		return r;
	}
	cr->corefd = fcntl(raw->fd, F_DUPFD_CLOEXEC, 3);
	if (cr->c.storage == STORAGE_JOURNAL && cr->o.st.bytes > cr->c.journal_size_max)
		(void) snprintf(cr->o.storage_note, sizeof(cr->o.storage_note), "%llu bytes, more than JournalSizeMax",
				(unsigned long long)cr->o.st.bytes);
	else if (cr->c.storage != STORAGE_EXTERNAL) {
		/*
		 * Read by the analysis through corefd, then dropped with it: never published (crash_finish); for the
		 * journal, sent in the entry first.
		 */
		crash_release(cr);
		cr->unpublished = *raw;
		cr->have_unpublished = true;
		cr->o.in_journal = cr->c.storage == STORAGE_JOURNAL;
		if (cr->c.storage == STORAGE_NONE)
			cr->o.result = RESULT_RECORDED;
		return 0;
	}
	if (!cr->c.compress) {
		r = publish(cr, raw, false);
		crash_release(cr);
		return r;
	}
	crash_release(cr);
	r = compress(cr, raw, mode, &z);
	cr->o.compress_error = r < 0 ? -r : 0;
	if (r < 0)
		return publish(cr, raw, false);
	store_discard(raw);
	return publish(cr, &z, true);
}

/* Who may read the core: the crashing user's FileMode, or root alone for a process not dumpable by its owner. */
static mode_t core_mode(const struct crash *cr)
{
	return cr->k.dumpmode == SUID_DUMP_USER ? cr->c.file_mode : 0600;
}

/*
 * The filter that makes the core a minimal one as it comes in, reading the module list from the process's memory
 * while the kernel still holds it for the dump.
 */
static struct minicore *minimal_core(struct crash *cr)
{
	const struct procinfo_id id = process_id(cr);

	cr->memfd = cr->pi.trusted ? procinfo_open_mem(&id) : -ESRCH;
	minicore_init(&cr->mc, cr->in, cr->memfd, cr->c.minimal_stack_max);
	cr->o.minimal_wanted = true;
	return &cr->mc;
}

/*
 * Copies the input into f, a new hidden file, within the limits, then publishes or discards it. At a limit the
 * input is released at once: the kernel stops dumping. 0 or -errno.
 */
int crash_copy(struct crash *cr, struct store_file *f)
{
	struct engine_opts eo;
	struct engine_hooks h;
	int r;

	engine_options(cr, &eo, &h);
	if (cr->c.core == CORE_MINIMAL)
		eo.minicore = minimal_core(cr);
	cr->o.strategy = eo.minicore ? STRATEGY_READWRITE : eo.strategy;
	r = engine_copy(cr->in, f->fd, &eo, &cr->o.st);
	if (cr->o.st.compressed) {
		/* As after a compression of the raw core: st counts the core's bytes, zst the file's. */
		cr->o.zst = cr->o.st;
		cr->o.st.bytes = cr->o.st.input;
	}
	if (eo.minicore)
		cr->o.mini = cr->mc.st;
	if (cr->o.st.truncated)
		crash_release(cr);
	cr->o.have_siginfo = elfcore_siginfo(eo.head, cr->o.st.head_bytes, &cr->o.siginfo) == 0;
	cr->o.vacuumed = cr->q.removed;
	cr->o.vacuumed_unsent = cr->q.unsent;
	cr->o.vacuumed_bytes = cr->q.freed;
	if (cr->o.st.bytes == 0 && (r < 0 || !cr->o.st.truncated)) {
		crash_release(cr);
		store_discard(f);
		return crash_fail(cr, "copying", r < 0 ? r : -ENODATA);
	}
	if (r < 0)
		(void) crash_fail(cr, "copying", r);
	cr->o.result = verdict(cr, r);
	if (cr->o.result == RESULT_DISCARDED) {
		crash_release(cr);
		store_discard(f);
		return 0;
	}
	return keep(cr, f, core_mode(cr));
}

/* Creates the file and copies the core into it: crash_copy(). 0 or -errno. */
int crash_store(struct crash *cr)
{
	struct store_file f;
	int r = store_create(cr->dirfd, core_mode(cr), &f);

	if (r < 0)
		return crash_fail(cr, "creating the file", r);
	return crash_copy(cr, &f);
}

/*
 * The stack trace of the stored core, in the sandbox: as the crashing user when the crash is theirs to see, as the
 * dedicated analysis user otherwise (root's, a system user's, a setuid program's crash): never as root, never as
 * another system user, never as nobody, whose other processes could then reach it.
 */
static void analyse(struct crash *cr)
{
	struct analysis_opts ao = { .exe = cr->pi.exe, .core_size = cr->o.st.bytes,
				    .timeout_ms = (unsigned)cr->c.stack_trace_ms,
				    .root_fd = cr->pi.complete ? cr->pi.root_fd : -1 };
	int r;

	if (!cr->c.stack_trace || cr->corefd < 0 || (cr->o.path[0] == '\0' && !cr->have_unpublished))
		return;
	if (cr->o.st.bytes > cr->c.stack_trace_max) {
		(void) snprintf(cr->a.why, sizeof(cr->a.why), "not made: the core is larger than StackTraceMaxSize");
		return;
	}
	if (owner_sees(cr)) {
		ao.uid = cr->k.uid;
		ao.gid = cr->k.gid;
	} else if ((r = analysis_user(&ao.uid, &ao.gid)) < 0) {
		(void) snprintf(cr->a.why, sizeof(cr->a.why), "not made: no user %s to run it as (%s)", ANALYSIS_USER,
				r == -ENOENT ? "make install creates it" : strerror(-r));
		return;
	}
	r = analysis_run(cr->corefd, &ao, &cr->a);
	if (r < 0)
		(void) snprintf(cr->a.why, sizeof(cr->a.why), "not made: %s", strerror(-r));
}

/* What the rules match a crash on: the kernel's facts, and /proc's where it proved to be the crashed process. */
static void rule_facts(const struct crash *cr, struct container *ct, struct rule_facts *f)
{
	cgroup_container(cr->pi.cgroup ? cr->pi.cgroup : "", ct);
	*f = (struct rule_facts) {
		.exe = cr->pi.exe, .comm = cr->k.comm, .unit = cr->pi.units.unit, .user_unit = cr->pi.units.user_unit,
		.slice = cr->pi.units.slice, .hostname = cr->k.hostname, .uid = cr->k.uid, .signal = cr->k.signal,
		.container = cr->pi.container || ct->machine[0] || ct->runtime[0], .machine = ct->machine,
		.container_id = ct->id,
	};
}

/*
 * The first [Rule] that matches the crash sets its keys over the config. Storage=none reads the core for the stack
 * trace only, and the trace needs no more than a minimal core.
 */
static void apply_rule(struct crash *cr)
{
	struct container ct;
	struct rule_facts f;
	int i;

	rule_facts(cr, &ct, &f);
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
	if (cr->k.rlimit < RLIMIT_MIN) {
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

/*
 * Pipe mode: what the kernel dropped over kernel.core_pipe_limit since the last look, in one entry of its own. One
 * handler a second looks (session_kernel_skips), after its own crash was let go and logged. A new ledger looks from
 * a second before this crash (%t has whole seconds): the storm that brought this handler may have made it.
 */
static void report_dropped(struct crash *cr)
{
	struct timespec now, up;
	uint64_t now_ms, up_usec, ago_usec;
	struct kskip ks;

	if (cr->o.socket || !cr->have_session)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	clock_gettime(CLOCK_MONOTONIC, &up);
	now_ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
	up_usec = (uint64_t)up.tv_sec * 1000000 + (uint64_t)up.tv_nsec / 1000;
	ago_usec = ((uint64_t)now.tv_sec > cr->k.time ? (uint64_t)now.tv_sec - cr->k.time : 0) * 1000000 + 1000000;
	if (session_kernel_skips(&cr->q, now_ms, up_usec > ago_usec ? up_usec - ago_usec : 0, &ks) == 1)
		(void) report_kernel_skips(&ks, kskip_pipe_limit());
}

/* How long journald may take to write an entry with a core in it, before the core is stored as a file instead. */
#define JOURNAL_WRITE_MS 5000

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
 * The crash's entry. A core for the journal goes in it; when journald does not take it (gone, or refusing so large
 * an entry), the core is published as a file after all and the entry sent without it, saying why.
 */
static void log_crash(struct crash *cr)
{
	char match[64];
	int r;

	if (cr->o.in_journal)
		entry_id(cr->o.entry_id, sizeof(cr->o.entry_id));
	r = report_crash(&cr->k, &cr->o, &cr->pi, &cr->a, cr->corefd);
	if (!cr->o.in_journal)
		return;
	/* Taken is not written: journald drops an entry larger than its journal files may grow, and says nothing. */
	(void) snprintf(match, sizeof(match), "CORESINK_ENTRY=%s", cr->o.entry_id);
	if (r == 0 && (r = journal_find(match, JOURNAL_WRITE_MS)) == 0)
		return;
	cr->o.in_journal = false;
	(void) snprintf(cr->o.storage_note, sizeof(cr->o.storage_note), "journald did not %s the core: %s",
			r == -ETIMEDOUT ? "write" : "take", r == -ETIMEDOUT ? "the entry is not in the journal (larger "
			"than its files may grow?)" : strerror(-r));
	cr->have_unpublished = false;
	(void) publish(cr, &cr->unpublished, false);
	(void) report_crash(&cr->k, &cr->o, &cr->pi, &cr->a, -1);
}

/*
 * After the copy, whatever came of it: the process is let go, the core analysed, and everything logged, the crash
 * in its one entry. Then the raw core's last fd and the ledger are closed.
 */
void crash_finish(struct crash *cr)
{
	crash_release(cr);
	cr->o.owner_entry = owner_sees(cr);
	analyse(cr);
	(void) report_diag(&cr->kd, "the kernel arguments", "safe defaults used, the core kept for root only");
	(void) report_diag(&cr->cd, cr->config, "defaults used, capture goes on");
	(void) report_diag(&cr->ledger, "the ledger", "no MaxUse, vacuum or rate limit for this crash");
	log_crash(cr);
	report_dropped(cr);
	crash_upload(cr);
	analysis_free(&cr->a);
	procinfo_free(&cr->pi);
	if (cr->have_unpublished)
		store_discard(&cr->unpublished);
	minicore_free(&cr->mc);
	if (cr->memfd >= 0)
		(void) close(cr->memfd);
	config_free(&cr->c);
	/* The raw core's blocks go with its last fd; only then may the ledger stop counting them. */
	if (cr->corefd >= 0)
		(void) close(cr->corefd);
	if (cr->have_session)
		session_close(&cr->q);
	if (cr->dirfd >= 0)
		(void) close(cr->dirfd);
}

/*
 * What every entry needs of the crashed process, from /proc while the kernel still holds it (it does until the core
 * is read); begin_capture() reads the rest for a crash that is stored.
 */
void crash_read_process(struct crash *cr)
{
	const struct procinfo_id id = process_id(cr);

	(void) procinfo_read(&id, &cr->pi);
	cr->o.exe = cr->pi.exe;
}

/* A crash whose core comes from in, with the config read from config (problems kept for its entry). */
void crash_init(struct crash *cr, int in, const char *config, bool named)
{
	*cr = (struct crash) { .in = in, .config = config, .dirfd = -1, .corefd = -1, .memfd = -1,
			       .q = { .statefd = -1 }, .mc = { .devnull = -1 } };
	config_read(&cr->c, config, named, &cr->cd);
}

/*
 * Socket mode's decision, made before the kernel dumps a byte, after crash_admit(): room for a first chunk, old
 * cores removed to make it as the copy would. 1 to take the core into *f, 0 when there is none (cr->o says what), or
 * -errno.
 */
int crash_room(struct crash *cr, struct store_file *f)
{
	struct engine_opts eo;
	struct engine_hooks h;
	int r = store_create(cr->dirfd, core_mode(cr), f);

	if (r < 0)
		return crash_fail(cr, "creating the file", r);
	engine_options(cr, &eo, &h);
	r = room_for_core(f->fd, &eo, &cr->o.st);
	cr->o.vacuumed = cr->q.removed;
	cr->o.vacuumed_unsent = cr->q.unsent;
	cr->o.vacuumed_bytes = cr->q.freed;
	if (r > 0)
		return 1;
	store_discard(f);
	if (r < 0)
		return crash_fail(cr, "checking for room", r);
	cr->o.result = RESULT_DISCARDED;
	cr->o.st.truncated = true;
	return 0;
}

/* What an entry point returns: 0 when the crash was handled as the policy says, or the -errno r that failed it. */
int crash_status(const struct crash *cr, int r)
{
	return cr->o.result == RESULT_FAILED && r < 0 ? r : 0;
}
