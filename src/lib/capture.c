/*
 * capture.c: one crash, from what the kernel says of it to its one journal entry. The steps: read the arguments
 * (pipe mode) or ask the peer's pidfd (socket mode) and the config (problems are logged, defaults used), skip a
 * core RLIMIT_CORE forbids, open the directory, apply the crash-rate limit, store within the limits, log. Socket
 * mode decides before the dump and tells the kernel. Nothing is printed: stdout is /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "basics.h"
#include "capture.h"
#include "config.h"
#include "creds.h"
#include "elfcore.h"
#include "kargs.h"
#include "name.h"
#include "owner.h"
#include "peer.h"
#include "procinfo.h"
#include "quota.h"
#include "report.h"
#include "sockproto.h"
#include "store.h"
#include "xattr.h"

/* The shortest run of zero pages a core to be compressed leaves as a hole (see engine_options). */
#define RAW_MIN_HOLE (64 * 1024)

/* zstd's level for stored cores (README: Benchmark, compression), and the read buffer that feeds it. */
#define COMPRESS_LEVEL 1
#define COMPRESS_BUFFER (256 * 1024)

/* Below a page no core is worth storing: the kernel itself writes none. */
#define RLIMIT_MIN PAGE_BYTES

struct job {
	struct config c;
	struct kargs k;
	struct outcome o;
	struct quota q;
	struct procinfo pi;
	struct analysis a;
	bool have_quota;
	int dirfd;
	int corefd;           /* the stored core, kept open for reading after it is published: the analysis reads it */
	struct diag ledger;   /* problems with the shared ledger: MaxUse, vacuum and rate limits off */
};

static int fail(struct job *j, const char *step, int r)
{
	j->o.result = RESULT_FAILED;
	j->o.step = step;
	j->o.error = -r;
	return r;
}

/*
 * Done with the input: closing the pipe tells the kernel to stop dumping, if it has not finished, and lets the
 * process go (with kernel.core_pipe_limit set, the kernel waits for exactly this). /dev/null takes its place, so
 * that fd 0 is never reused by a later open; the engine may have closed it already at a limit.
 */
static void drop_input(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd > STDIN_FILENO) {
		(void) dup2(fd, STDIN_FILENO);
		(void) close(fd);
	} else if (fd < 0) {
		(void) close(STDIN_FILENO);
	}
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
	j->have_quota = r == 0;
	if (r < 0)
		diag_add(&j->ledger, "%s/%s: %s", j->c.directory, LEDGER_FILE, strerror(-r));
	return 0;
}

/*
 * For a crash about to be stored: the early log line (a handler killed mid-capture still leaves it), the stored
 * cores counted afresh in the ledger, and the rest of what /proc tells, while the kernel still holds the process.
 */
static void begin_capture(struct job *j)
{
	const struct procinfo_id id = { j->k.pid, j->k.pidfd, j->k.tid, j->k.time };
	int r;

	(void) report_start(&j->k);
	if (j->have_quota) {
		r = quota_begin(&j->q);
		if (r < 0) {
			diag_add(&j->ledger, "%s/%s: %s", j->c.directory, LEDGER_FILE, strerror(-r));
			quota_close(&j->q);
			j->have_quota = false;
		}
	}
	(void) procinfo_complete(&id, j->c.capture_environment, &j->pi);
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
	/*
	 * A core to be compressed is stored for a moment only: single zero pages between data, which cost ext4 an
	 * extent each (1 GiB with a zero page in three: 2.2 s sparse against 0.8 s dense, measured), are written;
	 * the long runs that make most of a real core's zeros (idle stacks, untouched heap) stay holes.
	 */
	o->min_hole = j->c.compress ? RAW_MIN_HOLE : PAGE_BYTES;
	o->chunk = j->c.chunk_size;
	o->keep_free = j->c.keep_free;
	o->max_use = j->c.max_use;
	o->max_core = j->c.max_core_size;
	o->rlimit = j->k.rlimit;
	o->close_on_limit = true;
	o->lock_fd = j->have_quota ? quota_lock_fd(&j->q) : -1;
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

/*
 * Whether the crash is its owner's to see, in their journal and in their own analysis: a regular user's process
 * (uid_is_regular: not root, a system, dynamic, nobody or container uid, all of which name no one for good),
 * dumpable by its owner, that never changed credentials (systemd-coredump's rule since CVE-2025-4598), and proven
 * to be the one that crashed.
 */
static bool owner_sees(const struct job *j)
{
	return j->k.dumpmode == SUID_DUMP_USER && uid_is_regular(j->k.uid) && j->pi.trusted && j->pi.creds_unchanged;
}

/* Whether the owner may also read the core itself: only where the kernel's pidfd (%F) proved who crashed. */
static bool owner_may_read(struct job *j)
{
	if (!owner_sees(j))
		return false;
	if (!j->pi.by_pidfd)
		j->o.acl_none = "the kernel gave no pidfd (%F) to prove whose crash it was";
	return j->pi.by_pidfd;
}

/*
 * Publishes f, the raw core or its compressed copy, with its attributes and the owner's access; the raw core stays
 * open (corefd) for the analysis. 0 or -errno.
 */
static int publish(struct job *j, struct store_file *f, bool compressed)
{
	char name[NAME_MAX_LEN];
	struct stat st;
	int r;

	(void) xattr_describe(f->fd, &j->k, j->pi.exe);
	if (owner_may_read(j)) {
		r = owner_grant(f->fd, j->k.uid);
		j->o.acl_error = r < 0 ? -r : 0;
		j->o.acl = r == 0;
	}
	/* What the file takes with its attributes (ext4 may give them a block of their own), for MaxUse. */
	if (fstat(f->fd, &st) < 0)
		st = (struct stat) { .st_ino = 0 };
	j->o.disk = (uint64_t)st.st_blocks * 512;
	/* The analysis reads the raw core once it has its name: no vacuum may take it before it is done. */
	if (!compressed && j->have_quota && st.st_ino)
		(void) quota_hold(&j->q, (uint64_t)st.st_ino);
	r = store_publish(f, j->k.comm, j->k.pid, j->k.time, compressed, name, sizeof(name));
	if (r < 0)
		return fail(j, "publishing the file", r);
	(void) snprintf(j->o.path, sizeof(j->o.path), "%s/%s", j->c.directory, name);
	/* A compressed core's raw one, read by the analysis, is on disk until then: the others count it. */
	if (j->have_quota)
		(void) quota_publish(&j->q, j->o.disk, compressed ? j->o.st.allocated : 0);
	return 0;
}

/*
 * Compresses the stored raw core into a second hidden file with the same engine and limits: it counts what both
 * take while they are side by side (held_base). 0, or -errno with the compressed file gone, when it could not be
 * made whole (a limit, an error): the raw core is then published instead, as it is complete.
 */
static int compress(struct job *j, struct store_file *raw, mode_t mode, struct store_file *z)
{
	struct engine_opts eo;
	struct engine_hooks h;
	struct timespec t0, t1;
	int r;

	r = store_create(j->dirfd, mode, z);
	if (r < 0)
		return r;
	engine_options(j, &eo, &h);
	eo.head = NULL;
	eo.compress = COMPRESS_LEVEL;
	/* zstd keeps its own window: a smaller read buffer keeps the handler within its memory bound (README). */
	eo.buffer = COMPRESS_BUFFER;
	eo.held_base = j->o.st.allocated;
	eo.baseline = j->o.st.baseline;
	/* Size limits were applied to the core as it came; the input is a file here, not the kernel's pipe. */
	eo.max_core = eo.rlimit = UINT64_MAX;
	eo.close_on_limit = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = lseek(raw->fd, 0, SEEK_SET) < 0 ? -errno : engine_copy(raw->fd, z->fd, &eo, &j->o.zst);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	j->o.compress_us = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000);
	if (r == 0 && j->o.zst.truncated)
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
static int keep(struct job *j, struct store_file *raw, mode_t mode)
{
	struct store_file z;
	int r;

	j->corefd = fcntl(raw->fd, F_DUPFD_CLOEXEC, 3);
	if (!j->c.compress) {
		r = publish(j, raw, false);
		drop_input();
		return r;
	}
	drop_input();
	r = compress(j, raw, mode, &z);
	j->o.compress_error = r < 0 ? -r : 0;
	if (r < 0)
		return publish(j, raw, false);
	store_discard(raw);
	return publish(j, &z, true);
}

/* Who may read the core: the crashing user's FileMode, or root alone for a process not dumpable by its owner. */
static mode_t core_mode(const struct job *j)
{
	return j->k.dumpmode == SUID_DUMP_USER ? j->c.file_mode : 0600;
}

/* Copies stdin into f, a new hidden file, within the limits, then publishes or discards it. 0 or -errno. */
static int copy_core(struct job *j, struct store_file *f)
{
	struct engine_opts eo;
	struct engine_hooks h;
	int r;

	engine_options(j, &eo, &h);
	j->o.strategy = eo.strategy;
	r = engine_copy(STDIN_FILENO, f->fd, &eo, &j->o.st);
	j->o.have_siginfo = elfcore_siginfo(eo.head, j->o.st.head_bytes, &j->o.siginfo) == 0;
	j->o.vacuumed = j->q.removed;
	j->o.vacuumed_bytes = j->q.freed;
	if (j->o.st.bytes == 0 && (r < 0 || !j->o.st.truncated)) {
		drop_input();
		store_discard(f);
		return fail(j, "copying", r < 0 ? r : -ENODATA);
	}
	if (r < 0)
		(void) fail(j, "copying", r);
	j->o.result = verdict(j, r);
	if (j->o.result == RESULT_DISCARDED) {
		drop_input();
		store_discard(f);
		return 0;
	}
	return keep(j, f, core_mode(j));
}

static int store(struct job *j)
{
	struct store_file f;
	int r = store_create(j->dirfd, core_mode(j), &f);

	if (r < 0)
		return fail(j, "creating the file", r);
	return copy_core(j, &f);
}

/*
 * The stack trace of the stored core, in the sandbox: as the crashing user when the crash is theirs to see, as the
 * dedicated analysis user otherwise (root's, a system user's, a setuid program's crash): never as root, never as
 * another system user, never as nobody, whose other processes could then reach it.
 */
static void analyse(struct job *j)
{
	struct analysis_opts ao = { .exe = j->pi.exe, .core_size = j->o.st.bytes,
				    .timeout_ms = (unsigned)j->c.stack_trace_ms };
	int r;

	if (!j->c.stack_trace || j->corefd < 0 || j->o.path[0] == '\0')
		return;
	if (j->o.st.bytes > j->c.stack_trace_max) {
		(void) snprintf(j->a.why, sizeof(j->a.why), "not made: the core is larger than StackTraceMaxSize");
		return;
	}
	if (owner_sees(j)) {
		ao.uid = j->k.uid;
		ao.gid = j->k.gid;
	} else if ((r = analysis_user(&ao.uid, &ao.gid)) < 0) {
		(void) snprintf(j->a.why, sizeof(j->a.why), "not made: no user %s to run it as (%s)", ANALYSIS_USER,
				r == -ENOENT ? "make install creates it" : strerror(-r));
		return;
	}
	r = analysis_run(j->corefd, &ao, &j->a);
	if (r < 0)
		(void) snprintf(j->a.why, sizeof(j->a.why), "not made: %s", strerror(-r));
}

/*
 * The admission decision, the same in both modes, taken before a byte of the core is read: RLIMIT_CORE, the
 * storage, the crash-rate limits. A crash refused here has cost the kernel's wait (core_pipe_limit) little: its
 * brief /proc, the directory, one pass through the ledger. 1 to store it (begin_capture() done), 0 when decided
 * otherwise (j->o says what), or -errno.
 */
static int admit(struct job *j)
{
	int r;

	if (j->k.rlimit < RLIMIT_MIN) {
		j->o.result = RESULT_SKIPPED;
		return 0;
	}
	r = open_storage(j);
	if (r < 0)
		return r;
	if (rate_limited(j))
		return 0;
	begin_capture(j);
	return 1;
}

/* Decides and stores: skipped, refused, suppressed or copied. 0, or -errno when nothing could be stored. */
static int run(struct job *j)
{
	int r = admit(j);

	if (r <= 0) {
		drop_input();
		return r;
	}
	return store(j);
}

/*
 * Pipe mode: what the kernel dropped over kernel.core_pipe_limit since the last look, in one entry of its own. One
 * handler a second looks (quota_kernel_skips), after its own crash was let go and logged.
 */
static void report_dropped(struct job *j)
{
	struct timespec now;
	struct kskip ks;

	if (j->o.socket || !j->have_quota)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	if (quota_kernel_skips(&j->q, (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000, &ks) == 1)
		(void) report_kernel_skips(&ks, kskip_pipe_limit());
}

/*
 * After the copy, whatever came of it: the process is let go, the core analysed, and everything logged, the crash
 * in its one entry. Then the raw core's last fd and the ledger are closed.
 */
static void finish(struct job *j, const struct diag *kd, const struct diag *cd, const char *config)
{
	drop_input();
	j->o.owner_entry = owner_sees(j);
	analyse(j);
	(void) report_diag(kd, "the kernel arguments", "safe defaults used, the core kept for root only");
	(void) report_diag(cd, config, "defaults used, capture goes on");
	(void) report_diag(&j->ledger, "the ledger", "no MaxUse, vacuum or rate limit for this crash");
	(void) report_crash(&j->k, &j->o, &j->pi, &j->a);
	report_dropped(j);
	analysis_free(&j->a);
	procinfo_free(&j->pi);
	/* The raw core's blocks go with its last fd; only then may the ledger stop counting them. */
	if (j->corefd >= 0)
		(void) close(j->corefd);
	if (j->have_quota)
		quota_close(&j->q);
	if (j->dirfd >= 0)
		(void) close(j->dirfd);
}

/*
 * What every entry needs of the crashed process, from /proc while the kernel still holds it (it does until the core
 * is read); begin_capture() reads the rest for a crash that is stored.
 */
static void read_process(struct job *j)
{
	const struct procinfo_id id = { j->k.pid, j->k.pidfd, j->k.tid, j->k.time };

	(void) procinfo_read(&id, &j->pi);
	j->o.exe = j->pi.exe;
}

static void job_init(struct job *j)
{
	j->dirfd = -1;
	j->corefd = -1;
	j->q.statefd = -1;
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

	job_init(&j);
	(void) kargs_parse(argc, argv, &j.k, &kd);
	config_read(&j.c, config, named, &cd);
	read_process(&j);
	r = run(&j);
	finish(&j, &kd, &cd, config);
	return j.o.result == RESULT_FAILED && r < 0 ? r : 0;
}

/*
 * Socket mode's decision, made before the kernel dumps a byte: what pipe mode would decide with the core in front
 * of it, short of the copy (RLIMIT_CORE, the rate limits, room for a first chunk after removing old cores as the
 * copy would). 1 to take the core into *f, 0 when decided otherwise (j->o says what), or -errno.
 */
static int decide(struct job *j, struct store_file *f)
{
	struct engine_opts eo;
	struct engine_hooks h;
	int r = admit(j);

	if (r <= 0)
		return r;
	r = store_create(j->dirfd, core_mode(j), f);
	if (r < 0)
		return fail(j, "creating the file", r);
	engine_options(j, &eo, &h);
	r = engine_room(f->fd, &eo, &j->o.st);
	j->o.vacuumed = j->q.removed;
	j->o.vacuumed_bytes = j->q.freed;
	if (r > 0)
		return 1;
	store_discard(f);
	if (r < 0)
		return fail(j, "checking for room", r);
	j->o.result = RESULT_DISCARDED;
	j->o.st.truncated = true;
	return 0;
}

/*
 * The exchange with the kernel on the connection (fd 0): its request, the decision, the ack; then the core, when
 * it was taken. 0 or -errno, as run().
 */
static int serve(struct job *j)
{
	struct coredump_req req;
	struct store_file f;
	uint32_t mark;
	int take, r;

	r = sockproto_request(STDIN_FILENO, &req);
	if (r < 0)
		return fail(j, "reading the kernel's request", r);
	take = decide(j, &f);
	r = sockproto_ack(STDIN_FILENO, take > 0 ? COREDUMP_KERNEL | COREDUMP_WAIT : COREDUMP_REJECT, &mark);
	if (r < 0 && take > 0)
		store_discard(&f);
	if (r == -EPROTO)
		return fail(j, mark == UINT32_MAX ? "the kernel's answer to the ack" : sockproto_mark_to_string(mark), r);
	if (r < 0)
		return fail(j, "answering the kernel", r);
	j->o.rejected = take <= 0;
	return take > 0 ? copy_core(j, &f) : take;
}

/* The signal that killed the process: from the core's notes, else from its exit status once it is let go. */
static void learn_signal(struct job *j, struct peer *p)
{
	int sig;

	if (j->o.have_siginfo && j->o.siginfo.signo > 0) {
		j->k.signal = j->o.siginfo.signo;
		return;
	}
	drop_input();
	sig = peer_exit_signal(p, 1000);
	if (sig > 0)
		j->k.signal = sig;
}

/*
 * Socket mode: one connection to the coredump socket, in a process of its own (serve.c). A crashing task is
 * identified by its pidfd and handled as pipe mode handles one, with the decision made before the dump; anything
 * else is refused and logged. 0 when handled as the policy says, or -errno; logged either way.
 */
int capture_socket(const char *config, bool named, int conn, uint64_t time)
{
	static struct job j;
	struct diag kd = { 0 }, cd = { 0 };
	struct peer p;
	int r;

	job_init(&j);
	j.o.socket = true;
	/* The connection becomes the input, as the pipe is in pipe mode: drop_input() lets the task go. */
	if (dup2(conn, STDIN_FILENO) < 0)
		return -errno;
	if (conn != STDIN_FILENO)
		(void) close(conn);
	r = peer_identify(STDIN_FILENO, &p);
	if (r < 0) {
		(void) report_refused(STDIN_FILENO, r);
		drop_input();
		peer_close(&p);
		return r;
	}
	peer_kargs(&p, time, &j.k);
	config_read(&j.c, config, named, &cd);
	read_process(&j);
	r = serve(&j);
	learn_signal(&j, &p);
	finish(&j, &kd, &cd, config);
	peer_close(&p);
	return j.o.result == RESULT_FAILED && r < 0 ? r : 0;
}
