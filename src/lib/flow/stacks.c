/*
 * stacks.c: EarlyStacks=, every thread's stack for a core that may be cut short. Once the core's headers and notes
 * have passed (the engine's progress hook), the pieces a minimal core keeps (each thread's stack from its stack
 * pointer up, what finds the modules) are read from the crashed process's memory (rescue.c), while it still has it:
 * the kernel waits meanwhile, and a process killed while it dumps loses its memory with the rest of its dump. They
 * wait in a memfd; a whole core drops them. A core the kernel stopped before the extent its headers announce gets
 * them after the bytes that arrived, within the room above KeepFree and under MaxUse; a core a limit cut gets them
 * in place of its last bytes, so that the file stays within the limit. Both with program headers that say what the
 * file holds. Both modes: the pipe helper is root, socket mode's process for the crash reads through the
 * pidfd-checked /proc, as Core=minimal does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "capture-internal.h"

/* The core's headers and notes (need bytes) into a copy of its own: from the head, or read back from the file. */
static int take_head(struct early_stacks *es, int out, const void *head, size_t head_bytes, uint64_t need)
{
	es->head = malloc(need);
	if (!es->head)
		return -ENOMEM;
	es->head_len = need;
	if (need <= head_bytes) {
		memcpy(es->head, head, need);
		return 0;
	}
	return io_pread_full(out, es->head, need, 0) == (ssize_t)need ? 0 : -EIO;
}

/*
 * The pieces, planned and read from the process's memory into a memfd of their own. 0 or -errno. Run in a thread
 * of its own (io_run_within), which may outlive its wait.
 */
static int read_stacks(void *arg)
{
	struct crash *cr = arg;
	struct early_stacks *es = &cr->held.es;
	int store, r;

	if (cr->held.memfd < 0)
		return cr->held.memfd;
	r = rescue_plan(es->head, es->head_len, cr->held.memfd, cr->c.minimal_stack_max, &es->r);
	if (r < 0)
		return r;
	store = memfd_create("coresink-stacks", MFD_CLOEXEC);
	if (store < 0)
		return -errno;
	r = rescue_read(&es->r, cr->held.memfd, store);
	/* Once read, the store is the rescue's (rescue_free). */
	if (r < 0)
		fd_close(&store);
	return r;
}

/* The engine's progress hook: the stacks read once the notes have passed; until then, nothing. */
static void progress(void *ctx, int out, uint64_t written, bool raw, const void *head, size_t head_bytes)
{
	struct crash *cr = ctx;
	struct early_stacks *es = &cr->held.es;
	struct rescue_stats *rs = &cr->o.stacks;
	const struct procinfo_id id = crash_process_id(cr);
	uint64_t need = 0, t0;
	int r;

	if (es->state != ES_WAITING)
		return;
	r = rescue_need(head, head_bytes, &need);
	if (r == 1 && raw && written < need)
		return;
	if (r == 0 || (r == 1 && raw && need <= ELFCORE_NOTES_MAX))
		r = 0;
	else
		r = r < 0 ? r : -EFBIG;
	t0 = clock_us();
	if (r == 0)
		r = take_head(es, out, head, head_bytes, need);
	if (r == 0 && cr->held.memfd < 0)
		cr->held.memfd = cr->given.pi.trusted ? procinfo_open_mem(&id) : -ESRCH;
	/*
	 * Bounded: a mapping of a file system that answers when it likes (a user's FUSE mount) would hold this read,
	 * and the capture's slot, for as long as it likes. Past the bound the reader is left to itself, with the
	 * memory fd and the pieces it uses (never freed here: it may still write them); the core goes on without.
	 */
	if (r == 0)
		r = io_run_within(read_stacks, cr, (int)cr->c.socket_silence_ms);
	rs->us = clock_us() - t0;
	if (r == -ETIME) {
		es->state = ES_ABANDONED;
		cr->held.memfd = -1;
		rs->why = "the process's memory did not answer within SocketSilenceSec (a mapping of a slow file system)";
		return;
	}
	es->state = r == 0 ? ES_READ : ES_NONE;
	rs->read = r == 0;
	rs->threads = es->r.threads;
	rs->stacks_cut = es->r.stacks_cut;
	rs->stack_each = es->r.stack_each;
	rs->bytes = es->r.read;
	if (r < 0)
		rs->why = r == -EFBIG ? "its headers and notes are larger than 64 MiB" :
			  r == -ESRCH ? "the process was not proven to be the one that crashed" :
			  r == -EPROTONOSUPPORT || r == -EBADMSG ? "not a core this machine's plan reads" :
			  "the process's memory could not be read";
}

/* Sets the engine up to read the stacks early, where they may be needed: a full or encrypted core, EarlyStacks=yes. */
void crash_stacks_hook(struct crash *cr, struct engine_opts *eo)
{
	/* A minimal core encrypted as it comes has no plaintext file for its trace either: it gets them too. */
	if (!cr->c.early_stacks || (cr->c.core != CORE_FULL && cr->c.encrypt.n == 0))
		return;
	cr->held.es.state = ES_WAITING;
	cr->o.stacks.tried = true;
	cr->held.es.r.store = -1;
	eo->progress = progress;
	eo->progress_ctx = cr;
}

/* What giving the stacks adds on disk, for the room checks under the ledger's lock (session_spend()). */
struct give {
	struct crash *cr;
	uint64_t want;
};

/* The room for what is given: the room a capture's chunk would have (side.c), this core counted. 0 or -ENOSPC. */
static int give_within(void *ctx, uint64_t used, uint64_t pending)
{
	const struct give *g = ctx;

	return config_side_room(&g->cr->c, g->cr->held.dirfd, used + g->cr->o.st.allocated, pending) >= g->want ? 0 :
	       -ENOSPC;
}

/* The bytes of holes in fd between from and to: what writing there takes on disk that the file does not yet. */
static uint64_t holes_between(int fd, uint64_t from, uint64_t to)
{
	uint64_t holes = 0;
	off_t at = (off_t)from;

	while ((uint64_t)at < to) {
		off_t hole = lseek(fd, at, SEEK_HOLE), data;

		if (hole < 0 || (uint64_t)hole >= to)
			break;
		data = lseek(fd, hole, SEEK_DATA);
		if (data < 0 || (uint64_t)data > to)
			data = (off_t)to;
		holes += (uint64_t)(data - hole);
		at = data;
	}
	return holes;
}

/*
 * Where the stacks go: after the bytes that arrived, for a core the kernel stopped (nothing more was to come, and
 * every byte of it counts); in place of the last bytes, for a core a limit cut (the file stays within the limit).
 * *cut: the core's bytes kept before them; *want: what that adds on disk. 0 or -errno.
 */
static int place(struct crash *cr, int fd, uint64_t *cut, uint64_t *want)
{
	const struct early_stacks *es = &cr->held.es;
	int r;

	if (cr->o.st.limit == LIMIT_CUT_SHORT) {
		*cut = cr->o.st.bytes;
		*want = es->r.read + PAGE_BYTES * (es->r.n + 1) + (uint64_t)(es->r.n + 512) * 56;
		return 0;
	}
	r = rescue_fit(cr->o.st.bytes, es->head, es->head_len, &es->r, cut);
	*want = r == 0 ? holes_between(fd, *cut, cr->o.st.bytes) : 0;
	return r;
}

/*
 * A core the kernel stopped, or one a limit cut: every thread's stack and what finds the modules (rescue.c) where
 * place() says, with program headers that say what the file holds, within the room above KeepFree and under MaxUse.
 * The ELF header is written last: until then the file's own headers stand, and a failure cuts the file back to
 * what they describe truly (its first cut bytes), a cut core as before. 0, or -errno where even that failed: the
 * file then holds bytes its headers misname, and is not a core.
 */
int crash_stacks_give(struct crash *cr, int fd)
{
	struct rescue_stats *rs = &cr->o.stacks;
	struct give g = { cr, 0 };
	uint64_t size = 0, cut = 0;
	int r;

	if (cr->held.es.state != ES_READ)
		return 0;
	/* A zstd frame takes nothing after its end that zstd would read as part of the core. */
	if (cr->o.st.compressed) {
		rs->why = "the core is compressed as it came (a zstd frame takes nothing after its end)";
		return 0;
	}
	if (place(cr, fd, &cut, &g.want) < 0) {
		rs->why = "the limit leaves no room for them after the core's headers and notes";
		return 0;
	}
	r = cr->held.have_session ? session_spend(&cr->held.q, give_within, &g) : give_within(&g, 0, 0);
	if (r < 0) {
		rs->why = r == -ENOSPC ? "no room for them above KeepFree or under MaxUse" : "the room could not be known";
		return 0;
	}
	r = rescue_apply(fd, cut, cr->held.es.head, cr->held.es.head_len, &cr->held.es.r, &size);
	if (r == 0 && size < cr->o.st.bytes && ftruncate(fd, (off_t)size) < 0)
		r = -errno;
	if (r == 0)
		r = io_fdatasync(fd);
	if (r < 0) {
		rs->why = "they could not be written: the core is cut where they would have begun";
		if (ftruncate(fd, (off_t)cut) < 0 || io_fdatasync(fd) < 0)
			return -EIO;
		cr->o.st.bytes = cut;
		return 0;
	}
	/* The file's size from here on, what the entry, the journal's copy and the analysis take as the core's. */
	rs->kept = cut;
	rs->replaced = cr->o.st.bytes - cut;
	rs->added = size - cut;
	cr->o.st.bytes = size;
	return 0;
}

/*
 * The core the stack trace reads where the stored one is compressed as it came (the analysis reads a plain ELF
 * core, at random): the minimal core (Core=minimal) the pieces read as the dump began make, in a memfd of its
 * own, never on disk. Its fd, or -errno
 * with cr->o.stacks.why set.
 */
int crash_stacks_core(struct crash *cr)
{
	struct rescue_stats *rs = &cr->o.stacks;
	uint64_t size = 0;
	_cleanup_close_ int fd = -1;
	int r;

	if (cr->held.es.state != ES_READ) {
		if (!rs->why)
			rs->why = cr->held.es.state == ES_OFF ? "EarlyStacks=no" : "none were read";
		return -ENODATA;
	}
	fd = memfd_create("coresink-trace-core", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = rescue_minimal(fd, &cr->held.es.r, &size);
	if (r < 0) {
		rs->why = "the stack trace's core could not be made of them";
		return r;
	}
	rs->traced = size;
	return TAKE_FD(fd);
}

/* What EarlyStacks= holds: nothing unless crash_stacks_hook() set it up (its store is -1 until then). */
void crash_stacks_free(struct crash *cr)
{
	/* An abandoned reader may still write them: they go with the process. */
	if (cr->held.es.state == ES_OFF || cr->held.es.state == ES_ABANDONED)
		return;
	rescue_free(&cr->held.es.r);
	free(cr->held.es.head);
	cr->held.es.head = NULL;
}
