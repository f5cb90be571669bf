/*
 * keep.c: the core into a hidden file within the limits (the write stage's engine), then kept as the config says:
 * published raw, compressed first, or held unpublished for the analysis and the journal; and socket mode's room for a
 * first chunk, decided before the kernel dumps a byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "capture-internal.h"
#include "capture.h"
#include "intake.h"
#include "minicore.h"
#include "config.h"
#include "ledger.h"
#include "tidy.h"
#include "store.h"
#include "write.h"

/* The shortest run of zero pages a core to be compressed leaves as a hole (see engine_options). */
#define RAW_MIN_HOLE (64 * 1024)

/* zstd's level for stored cores (docs/benchmark.md: compression), and the read buffer that feeds it. */
#define COMPRESS_LEVEL 1
#define COMPRESS_BUFFER (256 * 1024)
#define COMPRESS_PROBE (64ULL << 20)
#define COMPRESS_PROBE_PCT 90

/*
 * The read-ahead thread (ReadAhead=), in one place. Socket mode only: the kernel's socket holds 208 KiB of the core in
 * flight, and stops while the handler waits for the disk. The pipe holds 1 MiB, and a thread there cost more CPU
 * than it saved (docs/benchmark.md: read-ahead). ReadAhead=auto reads 8 MiB ahead for a core stored as it is, where
 * the disk is what the kernel waits for; for one compressed as it comes, from its first chunk stored on
 * (ahead_stored: engine.c, copy_read_ahead()), where the disk is again what the kernel waits for, not while zstd
 * takes the CPU a thread would. Not for one encrypted alone (Compress=no, Encrypt=), whose every byte the cipher
 * takes. Its buffers are a MiB: a stored chunk is written a MiB at a time, as a raw one, whatever zstd is fed.
 */
static void read_ahead(const struct crash *cr, struct engine_opts *o)
{
	bool is_auto = cr->c.read_ahead == READ_AHEAD_AUTO;
	uint64_t bytes = cr->c.read_ahead;

	if (is_auto)
		bytes = o->n_age > 0 && !o->compress ? 0 : READ_AHEAD_RAW;
	o->ahead_slot = READ_AHEAD_SLOT;
	o->read_ahead = cr->o.socket ? (unsigned)(bytes / READ_AHEAD_SLOT) : 0;
	o->ahead_stored = o->compress && is_auto;
}

static void engine_options(struct crash *cr, struct engine_opts *o, struct engine_hooks *h)
{
	/*
	 * The core's first bytes, kept as they pass: its notes say the signal's si_code, and hold the threads' registers
	 * the early stacks start from. As large as those may be (a core compressed as it comes is nowhere else to read
	 * them back from); only the pages the head takes are touched (engine.c, read_head()).
	 */
	static unsigned char head[ELFCORE_NOTES_MAX];

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
	o->keep_free = cr->c.keep_free;
	o->max_use = cr->c.max_use;
	o->max_core = cr->c.max_core_size;
	o->rlimit = cr->given.k.rlimit;
	/* Socket mode: a dump the kernel reads slowly (a FUSE mapping's) must not hold a slot for SocketTimeoutSec. */
	o->silence_ms = cr->o.socket ? (int)cr->c.socket_silence_ms : 0;
	cr->o.silence_ms = (uint64_t)o->silence_ms;
	/*
	 * A file core is compressed as it comes, written once in its final form (docs/design.md: one write); zstd steps
	 * to stored chunks where it falls behind the kernel or the data does not shrink (engine.c, pace()). zstd's
	 * window and tables take what a smaller read buffer gives back: the handler's peak RSS stays within 8 MiB.
	 */
	if (cr->c.compress && cr->c.storage == STORAGE_EXTERNAL && (cr->c.core == CORE_FULL || cr->c.encrypt.n > 0)) {
		o->compress = COMPRESS_LEVEL;
		o->buffer = COMPRESS_BUFFER;
	}
	/* Encrypt=: every byte to the recipients as it comes; no plaintext file, ever (Compress=no too). */
	o->age_keys = (const unsigned char (*)[AGE_KEY_BYTES])cr->c.encrypt.keys;
	o->n_age = cr->c.encrypt.n;
	read_ahead(cr, o);
	o->compress_workers = (int)cr->c.compress_threads;
	if (cr->held.have_session) {
		session_hooks(&cr->held.q, h);
		session_share(&cr->held.q, cr->given.k.uid, &cr->c.max_use_per_user, &cr->c.max_use);
		o->hooks = h;
	}
}

/*
 * What a copy without error came to: stored, truncated (by a limit, or cut short: the dump ended before the extent
 * its headers announce, as the kernel stops it for a process killed while it dumps), or discarded (OnLimit=discard,
 * or nothing to keep).
 */
static enum result verdict(struct crash *cr)
{
	if (cr->o.st.cut_short) {
		cr->o.st.limit = cr->o.st.silent ? LIMIT_SILENT : LIMIT_CUT_SHORT;
		return RESULT_TRUNCATED;
	}
	if (!cr->o.st.truncated)
		return RESULT_STORED;
	return cr->c.on_limit == ON_LIMIT_DISCARD || cr->o.st.bytes == 0 ? RESULT_DISCARDED : RESULT_TRUNCATED;
}

/* Whether the owner may also read the core itself: only where the kernel's pidfd (%F) proved who crashed. */
static bool owner_may_read(struct crash *cr)
{
	if (!crash_owner_sees(cr))
		return false;
	if (!cr->given.pi.by_pidfd)
		cr->o.acl_none = "the kernel gave no pidfd (%F) to prove whose crash it was";
	return cr->given.pi.by_pidfd;
}

/*
 * Publishes f, the raw core or its compressed copy, with its attributes and the owner's access; the raw core stays
 * open (corefd) for the analysis. 0 or -errno.
 */
int crash_publish(struct crash *cr, struct store_file *f, bool compressed)
{
	char name[NAME_MAX_LEN];
	struct stat st;
	int r;

	(void) xattr_describe(f->fd, &cr->given.k, cr->given.pi.exe, cr->o.entry_id);
	if (owner_may_read(cr)) {
		r = owner_grant(f->fd, cr->given.k.uid);
		cr->o.acl_error = r < 0 ? r : 0;
		cr->o.acl = r == 0;
	}
	/* What the file takes with its attributes (ext4 may give them a block of their own), for MaxUse. */
	if (fstat(f->fd, &st) < 0)
		st = (struct stat) { .st_ino = 0 };
	cr->o.disk = (uint64_t)st.st_blocks * 512;
	/*
	 * One write of the ledger before the name: the core counted as stored, a compressed core's raw one (read by the
	 * analysis, on disk until then) still the capture's, and the raw core held, as the analysis reads it once it has
	 * its name: no vacuum may take it before it is done. (A handler killed once the name is out is named as stored:
	 * its core is found by that name, crash_core_of().)
	 */
	if (cr->held.have_session)
		(void) session_publish(&cr->held.q, cr->o.disk, compressed && !cr->o.st.compressed ? cr->o.st.allocated : 0,
				       (uint64_t)st.st_ino, !compressed ? (uint64_t)st.st_ino : 0);
	r = store_publish(f, cr->given.k.comm, cr->given.k.pid, cr->given.k.time, compressed, cr->o.st.encrypted, name,
			  sizeof(name));
	if (r < 0)
		return crash_fail(cr, "publishing the file", r);
	(void) snprintf(cr->o.path, sizeof(cr->o.path), "%s/%s", cr->c.directory, name);
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
	uint64_t t0;
	int r;

	r = store_create(cr->held.dirfd, mode, z);
	if (r < 0)
		return r;
	engine_options(cr, &eo, &h);
	eo.head = NULL;
	eo.compress = COMPRESS_LEVEL;
	/* zstd keeps its own window: a smaller read buffer keeps the handler within its memory bound (docs/benchmark.md). */
	eo.buffer = COMPRESS_BUFFER;
	/*
	 * In the handler's own thread: reading the raw core back from the disk is what this copy waits for (3.27 s
	 * for 1 GiB core-like with two zstd threads or none, docs/benchmark.md), and zstd's threads would take 28 MiB of RSS.
	 */
	eo.compress_workers = 0;
	eo.held_base = cr->o.st.allocated;
	eo.flush_dir = cr->c.flush_behind ? z->dirfd : -1;
	/* Data that shrinks by less than a tenth in its first 64 MiB is not worth a second copy: the raw core stays. */
	eo.probe = COMPRESS_PROBE;
	eo.probe_pct = COMPRESS_PROBE_PCT;
	eo.baseline = cr->o.st.baseline;
	eo.last = &cr->o.st.last;
	/* Size limits were applied to the core as it came; the input is a file here, not the kernel's pipe. */
	eo.max_core = eo.rlimit = UINT64_MAX;
	t0 = clock_us();
	r = lseek(raw->fd, 0, SEEK_SET) < 0 ? -errno : engine_copy(raw->fd, z->fd, &eo, &cr->o.zst);
	cr->o.compress_us = clock_us() - t0;
	if (r == 0 && cr->o.zst.truncated)
		r = -ENOSPC;
	if (r < 0)
		store_discard(z);
	return r;
}

/*
 * What becomes of a core once copied: a pure function of what the copy came to and what the config asks (no
 * syscall, unit-tested on a table: check_capture). failed: the copy failed or took nothing.
 */
enum fate crash_fate(bool failed, enum result result, bool compressed_as_came, enum storage storage, bool compress,
		     uint64_t bytes, uint64_t journal_size_max)
{
	if (failed || result == RESULT_DISCARDED)
		return FATE_DISCARD;
	if (compressed_as_came)
		return FATE_PUBLISH_COMPRESSED;
	/* A core too large for the journal is stored as a file instead (the entry says so). */
	if (storage == STORAGE_JOURNAL && bytes <= journal_size_max)
		return FATE_HOLD_JOURNAL;
	if (storage == STORAGE_NONE)
		return FATE_HOLD_UNPUBLISHED;
	return compress ? FATE_COMPRESS : FATE_PUBLISH_RAW;
}

/*
 * Keeps the core in raw as fate says, and lets the crashed process go, here and nowhere else once a core is kept
 * (capture.c's crash_handle() lets go of the others): a raw or compressed core once it has its name (a moment
 * later); a core held for the journal or for the analysis alone at once; one to be compressed before the
 * compression, which may take seconds. The raw core stays open for the analysis (corefd), marked as held in the
 * ledger (crash_publish()) so that no vacuum removes it meanwhile. 0 or -errno.
 */
static int keep(struct crash *cr, struct store_file *raw, mode_t mode, enum fate fate)
{
	struct store_file z;
	int r = 0;

	/* Compressed as it came, there is no raw core for the analysis: it reads one made in memory of the stacks. */
	cr->held.corefd = fate == FATE_PUBLISH_COMPRESSED ? crash_stacks_core(cr) : fcntl(raw->fd, F_DUPFD_CLOEXEC, 3);
	if (fate == FATE_PUBLISH_COMPRESSED && cr->held.corefd < 0)
		(void) snprintf(cr->a.why, sizeof(cr->a.why), "not made: the core was compressed as it came, and its "
				"threads' stacks were not read as the dump began (%s)", cr->o.stacks.why);
	if (cr->c.storage == STORAGE_JOURNAL && fate != FATE_HOLD_JOURNAL && fate != FATE_PUBLISH_COMPRESSED)
		(void) snprintf(cr->o.storage_note, sizeof(cr->o.storage_note), "%llu bytes, more than JournalSizeMax",
				(unsigned long long)cr->o.st.bytes);
	if (fate == FATE_PUBLISH_RAW || fate == FATE_PUBLISH_COMPRESSED)
		r = crash_publish(cr, raw, fate == FATE_PUBLISH_COMPRESSED && cr->o.st.compressed);
	if (fate == FATE_HOLD_JOURNAL || fate == FATE_HOLD_UNPUBLISHED) {
		/*
		 * Read by the analysis through corefd, then dropped with it: never published (crash_finish); for the
		 * journal, sent in the entry first.
		 */
		cr->held.unpublished = *raw;
		cr->held.have_unpublished = true;
		cr->o.in_journal = fate == FATE_HOLD_JOURNAL;
		if (fate == FATE_HOLD_UNPUBLISHED)
			cr->o.result = RESULT_RECORDED;
	}
	crash_release(cr);
	if (fate != FATE_COMPRESS)
		return r;
	r = compress(cr, raw, mode, &z);
	cr->o.compress_error = r < 0 ? r : 0;
	if (r < 0)
		return crash_publish(cr, raw, false);
	store_discard(raw);
	return crash_publish(cr, &z, true);
}

/* Who may read the core: the crashing user's FileMode, or root alone for a process not dumpable by its owner. */
static mode_t core_mode(const struct crash *cr)
{
	return cr->given.k.dumpmode == SUID_DUMP_USER ? cr->c.file_mode : 0600;
}

/*
 * The filter that makes the core a minimal one as it comes in, reading the module list from the process's memory
 * while the kernel still holds it for the dump.
 */
static struct minicore *minimal_core(struct crash *cr)
{
	const struct procinfo_id id = crash_process_id(cr);

	cr->held.memfd = cr->given.pi.trusted ? procinfo_open_mem(&id) : -ESRCH;
	minicore_init(&cr->held.mc, cr->given.in, cr->held.memfd, cr->c.minimal_stack_max);
	cr->held.mc.silence_ms = cr->o.socket ? (int)cr->c.socket_silence_ms : 0;
	cr->o.minimal_wanted = true;
	return &cr->held.mc;
}

/*
 * Copies the input into f, a new hidden file, within the limits; counts what came and judges it (cr->o.result, or
 * the failure): what becomes of it is crash_take()'s. 0 or -errno.
 */
int crash_copy(struct crash *cr, struct store_file *f)
{
	/* Socket mode's check before the dump (crash_room) read the room: a statfs that fails next does not stop us. */
	const struct statfs before = cr->o.st.last;
	struct engine_opts eo;
	struct engine_hooks h;
	cpu_set_t mine;
	bool apart;
	int r;

	engine_options(cr, &eo, &h);
	eo.baseline = cr->o.st.baseline;
	eo.last = &before;
	/* The disk's cache emptied as the core comes, not all after it (write/flush.c). */
	eo.flush_dir = cr->c.flush_behind ? f->dirfd : -1;
	if (cr->c.core == CORE_MINIMAL)
		eo.minicore = minimal_core(cr);
	crash_stacks_hook(cr, &eo);
	/*
	 * Encrypt=: the core's plaintext passes through this process's buffers (the read buffer, zstd's): kept out of
	 * swap where the kernel lets us (CAP_IPC_LOCK: the pipe helper; the units may not grant it). Best effort; the
	 * stacks' memfds are shmem, which may still be swapped (docs/design.md).
	 */
	if (eo.n_age > 0)
		(void) mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT);
	cr->o.strategy = eo.minicore ? STRATEGY_READWRITE : eo.strategy;
	apart = crash_apart(cr, &mine) == 0;
	r = engine_copy(cr->given.in, f->fd, &eo, &cr->o.st);
	if (apart)
		crash_together(&mine);
	if (cr->o.st.compressed) {
		/* As after a compression of the raw core: st counts the core's bytes, zst the file's. */
		cr->o.zst = cr->o.st;
		cr->o.st.bytes = cr->o.st.input;
	}
	if (eo.minicore)
		cr->o.mini = cr->held.mc.st;
	if (cr->o.st.encrypted)
		cr->o.encrypted_to = cr->c.encrypt.text;
	cr->o.have_siginfo = elfcore_siginfo(eo.head, cr->o.st.head_bytes, &cr->o.siginfo) == 0;
	/* Socket mode has no %I: the core names the thread. */
	if (cr->given.k.tid <= 0)
		(void) elfcore_thread(eo.head, cr->o.st.head_bytes, cr->given.k.pid, &cr->given.k.tid);
	cr->o.vacuumed = cr->held.q.removed;
	cr->o.vacuumed_unsent = cr->held.q.unsent;
	cr->o.vacuumed_bytes = cr->held.q.freed;
	/*
	 * An error (not a limit: those cut the core and keep it) leaves a file that may not hold what it says, or not
	 * on disk: no file under a final name, and the entry says which step failed.
	 */
	if (r < 0 || (cr->o.st.bytes == 0 && !cr->o.st.truncated))
		return crash_fail(cr, cr->o.st.failed_at ? cr->o.st.failed_at : "copying", r < 0 ? r : -ENODATA);
	cr->o.result = verdict(cr);
	return 0;
}

/*
 * The core copied into f, then what becomes of it (crash_fate): discarded, or kept (keep()), a core cut short with
 * the threads' stacks read as it began given after the bytes that came. 0 or -errno.
 */
int crash_take(struct crash *cr, struct store_file *f)
{
	int r = crash_copy(cr, f);
	enum fate fate = crash_fate(r < 0, cr->o.result, cr->o.st.compressed || cr->o.st.encrypted, cr->c.storage,
				    cr->c.compress, cr->o.st.bytes, cr->c.journal_size_max);

	if (fate != FATE_DISCARD && cr->o.result == RESULT_TRUNCATED) {
		r = crash_stacks_give(cr, f->fd);
		if (r < 0)
			fate = FATE_DISCARD;
		if (r < 0)
			(void) crash_fail(cr, "keeping the threads' stacks (the file could not be cut back)", r);
	}
	if (fate == FATE_DISCARD) {
		store_discard(f);
		return r;
	}
	return keep(cr, f, core_mode(cr), fate);
}

/*
 * Encrypt= that stores no core (fails closed: never a plaintext one instead): a value that did not parse, or a
 * Storage= that would keep the core in plaintext (the journal's copy, Storage=none's file for the analysis). The
 * reason, or NULL.
 */
static const char *encrypt_refused(const struct config *c)
{
	if (c->encrypt.bad)
		return "Encrypt= does not parse (no core is stored rather than a plaintext one; coresink --check-config)";
	if (c->encrypt.n > 0 && c->storage != STORAGE_EXTERNAL)
		return "Encrypt= holds for Storage=external only (the journal and Storage=none keep a plaintext core)";
	return NULL;
}

/* The hidden file the core goes into, where Encrypt= lets one be made. 0, or -errno with the crash failed. */
static int create_core(struct crash *cr, struct store_file *f)
{
	const char *refused = encrypt_refused(&cr->c);
	int r = refused ? -EKEYREJECTED : store_create(cr->held.dirfd, core_mode(cr), f);

	if (r < 0)
		(void) crash_fail(cr, refused ? refused : "creating the file", r);
	return r;
}

/* Creates the file and takes the core into it: crash_take(). 0 or -errno. */
int crash_store(struct crash *cr)
{
	struct store_file f;
	int r = create_core(cr, &f);

	return r < 0 ? r : crash_take(cr, &f);
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
	int r = create_core(cr, f);

	if (r < 0)
		return r;
	engine_options(cr, &eo, &h);
	r = room_for_core(f->fd, &eo, &cr->o.st);
	cr->o.vacuumed = cr->held.q.removed;
	cr->o.vacuumed_unsent = cr->held.q.unsent;
	cr->o.vacuumed_bytes = cr->held.q.freed;
	if (r > 0)
		return 1;
	store_discard(f);
	if (r < 0)
		return crash_fail(cr, "checking for room", r);
	cr->o.result = RESULT_DISCARDED;
	cr->o.st.truncated = true;
	return 0;
}
