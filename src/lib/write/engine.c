/*
 * engine.c: copies a core from a pipe into a file in chunks: the head read first (and whether the core is
 * compressed as it comes), the room for each chunk asked of room.c and its blocks preallocated, the chunk moved
 * (move.c: staged splice or read/write, with a transparent switch to read/write when the kernel refuses splice),
 * page-cache hygiene behind it. The same loop compresses a stored core into a zstd file (compress.c), with the
 * same checks: the budget of a chunk, in input bytes, bounds its compressed output. At a limit it stops and says
 * so; its caller closes the input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "engine-internal.h"
#include "engine.h"
#include "minicore.h"
#include "space.h"

#define PIPE_FLOOR (64 * 1024)

/*
 * pace(): a chunk under PACE_MIN (the last, say) says too little. Behind: at least PACE_READY_PCT % of its reads
 * found the input full and zstd took more than PACE_ZSTD_PCT % of its time. Raw: what came out is more than
 * PACE_RAW_PCT % of the data that went in, its whole zero pages aside (a stored chunk keeps them as RLE blocks, 4
 * bytes for up to 128 KiB: zstd saves nothing on them). Stored, one chunk in PACE_PROBE goes through zstd again, one
 * in twice as many each time it finds the same (at most PACE_PROBE_MAX).
 */
#define PACE_MIN (4u << 20)
#define PACE_READY_PCT 75
#define PACE_ZSTD_PCT 30
#define PACE_PROBE 8
#define PACE_PROBE_MAX 64
#define PACE_RAW_PCT 95
/* A probe's first PACE_SAMPLE bytes decide whether zstd goes on with it (copy_sample). */
#define PACE_SAMPLE (1u << 20)

void engine_defaults(struct engine_opts *o)
{
	*o = (struct engine_opts) {
		.strategy = STRATEGY_READWRITE,
		.prealloc = PREALLOC_KEEP_SIZE,
		.chunk = 16 << 20,
		.buffer = 1 << 20,
		.in_pipe = 1 << 20,
		.max_use = { .value = UINT64_MAX, .cap = UINT64_MAX },
		.max_core = UINT64_MAX,
		.rlimit = UINT64_MAX,
#ifdef CORESINK_TEST_PLANT_LINK_BEFORE_SYNC
		/* The planted bug's build writes as a naive handler does: no writeback of its own before the name. */
		.hygiene = false,
#else
		.hygiene = true,
#endif
		.flush_dir = -1,
		.sparse = true,
		.min_hole = PAGE_BYTES,
		.check_space = true,
	};
}


static size_t head_left(const struct copy *c)
{
	return c->head_read ? c->st->head_bytes - c->head_done : 0;
}

/*
 * Reads the first bytes of the stream into the caller's head buffer before any is written, whatever the strategy:
 * they are read once, and the caller learns what the core's notes say without reading the file back. Only as far
 * as the headers and notes go (rescue_need(), to a page), in steps as they tell their extent: filling a buffer of
 * ELFCORE_HEAD_MAX whole with data cost the handler 1 MiB of RSS, about 0.8 MiB of it for the process's memory that
 * passes through anyway (51 threads' notes take 180 KiB). The buffer may be larger (the handler's: the notes of
 * thousands of threads, which a core compressed as it comes has nowhere else); what is not a core it knows, or
 * whose notes go past the buffer, fills ELFCORE_HEAD_MAX of it, as a head did before.
 */
static int read_head(struct copy *c)
{
	unsigned char *head = c->o->head;
	const size_t len = c->o->head_len, plain = ELFCORE_HEAD_MAX < len ? ELFCORE_HEAD_MAX : len;
	size_t got = 0, want = PAGE_BYTES < len ? PAGE_BYTES : len;
	uint64_t need;

	for (;;) {
		ssize_t n = copy_read(c, head + got, want - got);

		if (n < 0)
			return (int)n;
		got += (size_t)n;
		if (got < want) {
			c->eof = true;
			break;
		}
		if (rescue_need(head, got, &need) < 0)
			need = plain;
		need = (need + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1);
		if (need > len)
			need = plain;
		if (need <= got)
			break;
		want = (size_t)need;
	}
	c->st->head_bytes = got;
	c->head_read = true;
	return 0;
}

/*
 * How this copy's blocks are reserved, by file system, in one place. Runs of data as they are written (write_run),
 * for a copy whose chunks are not all preallocated, sparse or packed: not on btrfs, which may write a run into new
 * blocks rather than the reserved ones (copy on write) and count both in statfs until its transaction commits (36 MB
 * under KeepFree on a 1 GiB btrfs, measured); packed, not on ext4 either, whose mballoc slack room.c counts instead
 * (a reservation there would sit next to the chunk under writeback, reserve_run). An encrypted chunk whose size is
 * known (stored, or encrypted as it is) a chunk ahead, as a raw one (reserves_chunk): on ext4 only, where encrypted
 * cores were let go sooner so (docs/benchmark.md, 2026-11-30; not measured again since); on btrfs it left statfs
 * 216 MiB behind the file, which the next capture took for room, and on xfs the file system dipped 20 KiB under
 * KeepFree for a moment (docs/design.md). A
 * stored chunk not encrypted is left to the delayed allocation, as on the other file systems: its core was let go
 * sooner than with the chunk reserved ahead (paired: 50 threads in pipe mode, 0.932 of the release, sooner in 8 runs
 * of 8; dense 0.947 in pipe mode, 0.958 in socket mode), for the same CPU (docs/benchmark.md, 2026-12-02).
 */
static void plan_reserve(struct copy *c)
{
	bool kind = c->sparse || (c->packed && !c->room.ext4);

	c->reserve_runs = kind && c->regular && !c->room.btrfs &&
			  (c->o->prealloc == PREALLOC_KEEP_SIZE || c->o->prealloc == PREALLOC_EXTEND);
	c->encrypted_ahead = c->encrypt && c->room.ext4;
}

/* Once, before the first chunk: the head read. 0 or -errno. */
static int copy_begin(struct copy *c)
{
	uint64_t size;
	int r;

	if (!c->o->head || c->o->head_len == 0)
		return 0;
	r = read_head(c);
	/* The extent the headers announce: a stream that ends before it was cut short (copy_end()). */
	if (r == 0 && !c->o->minicore && elfcore_size(c->o->head, c->st->head_bytes, &size) == 0)
		c->st->expected = size;
	if (r == 0 && c->o->progress)
		c->o->progress(c->o->progress_ctx, c->out, 0, !c->packed, c->o->head, c->st->head_bytes);
	return r;
}

/* Writes what is left of the head, as far as want. Bytes written, or -errno. */
static ssize_t move_head(struct copy *c, size_t want)
{
	size_t n = head_left(c) < want ? head_left(c) : want;
	int r = copy_write(c, (const char *)c->o->head + c->head_done, n);

	if (r < 0)
		return r;
	c->head_done += n;
	return (ssize_t)n;
}

/* Moves up to want bytes: the head first, then the current strategy. Bytes written, or -errno. */
static ssize_t move_chunk(struct copy *c, size_t want)
{
	ssize_t r, h = 0;

	if (head_left(c) > 0) {
		h = move_head(c, want);
		if (h < 0 || head_left(c) > 0 || c->eof || (size_t)h == want)
			return h;
		want -= (size_t)h;
	}
	r = copy_move(c, want);
	/*
	 * An error after the head is the chunk's error: returning the head's bytes instead went on with the next chunk
	 * at the same offset, and the bytes read but not written were lost from a core then called whole (a failed
	 * preallocation of the second run, injected). The file position says what arrived (engine_copy).
	 */
	return r < 0 ? r : r + h;
}

/*
 * What this capture holds on disk: written less its holes, what stored frames left past the grid (grid.c: written
 * with the next write, counted now), and what it holds elsewhere (the raw core).
 */
static uint64_t held(const struct copy *c)
{
	return c->off + c->grid.len - c->st->holes + c->o->held_base;
}

/*
 * Whether the next chunk's blocks are reserved before it is written (prealloc()): a dense chunk whose size is its
 * input's, raw, or packed where plan_reserve() says (stored frames add a few headers, 1 KiB or so a 16 MiB chunk; age
 * 16 bytes in 64 KiB: written as any). Not a sparse copy's: blocks reserved for pages that turn out to be zeros
 * would have to be punched out again one by one, which costs ext4 more than the copy (12 s for a GiB with a zero
 * page in three); its chunk is counted in the ledger instead (room_plan), and ENOSPC keeps what was written. Not a
 * chunk through zstd, whose size is not known before it is written.
 */
static bool reserves_chunk(const struct copy *c)
{
	if (c->o->prealloc == PREALLOC_NONE || c->sparse)
		return false;
	return !c->packed || (c->encrypted_ahead && (!c->compress || c->store));
}

/*
 * Reserves the blocks of the next chunk, where reserves_chunk() says. Where the file system has no fallocate
 * (EOPNOTSUPP: ext2, ext3, some network file systems) the file is extended with ftruncate instead, which at least
 * sets its size once per chunk; never posix_fallocate, which emulates by writing a byte per block. Only running out
 * of space is an error.
 */
static int prealloc(struct copy *c, size_t len)
{
	int mode = c->o->prealloc == PREALLOC_KEEP_SIZE ? FALLOC_FL_KEEP_SIZE : 0, r;
	/* The file's end: a packed file's first chunk comes after age's header, emitted at the start. */
	uint64_t end = c->packed ? c->emitted : c->off;
	/*
	 * A packed chunk begins inside the page the chunk before ended in (zstd's frames and age's chunks are not on
	 * the page grid): that page's block is the last chunk's, dirty and allocated late; the reservation starts at
	 * the next.
	 */
	uint64_t at = (end + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;

	if (!reserves_chunk(c) || at - end >= len)
		return 0;
	if (c->o->prealloc != PREALLOC_FTRUNCATE) {
		r = copy_reserve_blocks(c, mode, at, len - (at - end), true);
		if (r <= 0)
			return r;
	}
	/* Writes go to the file position, so a size set ahead of them changes nothing; copy_finish trims it. */
	return ftruncate(c->out, (off_t)(end + len)) < 0 && copy_out_of_space(-errno) ? -errno : 0;
}

/* Waits for the chunk under writeback and drops it from the page cache. */
static void settle(struct copy *c)
{
	if (!c->o->hygiene || c->prev_len == 0)
		return;
	(void) sync_file_range(c->out, (off_t)c->prev_off, (off_t)c->prev_len,
			       SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
	(void) posix_fadvise(c->out, (off_t)c->prev_off, (off_t)c->prev_len, POSIX_FADV_DONTNEED);
	c->prev_len = 0;
	/* Out of the page cache, the chunk may still be in the disk's: emptied while the next is copied. */
	flusher_ask(&c->flush);
}

/* Starts writeback of the chunk written last; it proceeds while the next chunk is copied. */
static void start_writeback(struct copy *c)
{
	if (!c->o->hygiene || c->pend_len == 0)
		return;
	(void) sync_file_range(c->out, (off_t)c->pend_off, (off_t)c->pend_len, SYNC_FILE_RANGE_WRITE);
	c->prev_off = c->pend_off;
	c->prev_len = c->pend_len;
	c->pend_len = 0;
}

/*
 * Tells whether the input still holds data once the budget is spent. The private pipe is always drained by
 * then, so one byte read from the input decides; it is consumed, as the capture stops anyway.
 */
static bool input_has_more(struct copy *c)
{
	char b;

	return copy_read(c, &b, 1) == 1;
}

/* The read-ahead ring's buffers: what a stored chunk writes at once from one (move.c, rw_copy()). */
static size_t ring_slot(const struct engine_opts *o)
{
	return o->ahead_slot ? o->ahead_slot : o->buffer;
}

/* The most a stored frame takes at once (compressor_store), which sizes its block headers. */
static size_t stored_max(const struct engine_opts *o)
{
	return o->read_ahead > 0 && ring_slot(o) > o->buffer ? ring_slot(o) : o->buffer;
}

/*
 * Starts the thread that reads the input ahead (o->read_ahead), once, where it is asked first: as the copy begins
 * (copy_setup), or, compressing with o->ahead_stored, at the first read after its chunks went out stored (move.c,
 * next_read(), which asks before every read of the input). While zstd compresses, the thread took the CPU that zstd
 * and the writes need; once the chunks go out stored, the copy waits for the disk and the kernel waits for the copy,
 * and the ring keeps the kernel going (docs/benchmark.md, 2026-12-01, fifth session). Best effort: without it, the
 * copy reads in its own thread.
 */
void copy_read_ahead(struct copy *c)
{
	if (c->ahead_tried || (c->compress && c->o->ahead_stored && !c->store))
		return;
	c->ahead_tried = true;
	if (c->o->read_ahead == 0 || c->strategy != STRATEGY_READWRITE || c->o->minicore || c->in_regular)
		return;
	c->ahead = prefetch_start(&c->pf, c->in, ring_slot(c->o), c->o->read_ahead, c->o->silence_ms) == 0;
	c->st->read_ahead = c->ahead;
	/* The input taken so far: the head, and what went through the buffer since. */
	c->st->ahead_from = c->st->head_bytes + c->in_off;
}

static int copy_setup(struct copy *c)
{
	struct stat st;
	int r;

	c->regular = fstat(c->out, &st) == 0 && S_ISREG(st.st_mode);
	c->in_regular = fstat(c->in, &st) == 0 && S_ISREG(st.st_mode);
	/* A compressed file is written by read/write, dense: zstd leaves no page of zeros. */
	/* A minimal core is made of what passes through the buffer. */
	if (c->o->minicore)
		c->strategy = STRATEGY_READWRITE;
	if (c->o->compress) {
		r = compressor_init(&c->z, c->o->compress, c->o->compress_workers, stored_max(c->o));
		if (r < 0)
			return r;
		c->compress = true;
		c->st->level = c->o->compress;
		c->probe_every = PACE_PROBE;
		c->strategy = STRATEGY_READWRITE;
	}
	/*
	 * Holes need the data in the buffer and a file position of its own: read/write into a regular file not opened
	 * for appending. A splice strategy stores dense, its fallback included.
	 */
	/* Encrypted, every byte goes through the age writer: read/write, dense, as compressed. */
	if (c->o->n_age > 0) {
		c->encrypt = true;
		c->strategy = STRATEGY_READWRITE;
	}
	c->packed = c->compress || c->encrypt;
	c->sparse = c->o->sparse && c->regular && c->strategy == STRATEGY_READWRITE && !c->packed &&
		    !(fcntl(c->out, F_GETFL) & O_APPEND);
	room_init(&c->room, c->out, c->o, c->st);
	plan_reserve(c);
	/* Best effort: without it, the final sync empties the disk's cache alone. */
	flusher_init(&c->flush, c->o->hygiene && c->regular ? c->o->flush_dir : -1);
	/* The header (a stanza per recipient) and the payload's nonce: the file's first bytes. */
	if (c->encrypt) {
		r = age_begin(&c->age, c->o->age_keys, c->o->n_age, copy_emit, c);
		if (r < 0) {
			c->encrypt = false;
			return r;
		}
	}
	/* Best effort: the kernel's core pipe holds 64 KiB; a larger one lets it run ahead while a chunk is flushed. */
	if (c->o->in_pipe > 0)
		(void) io_set_pipe_size(c->in, c->o->in_pipe, PIPE_FLOOR);
	copy_read_ahead(c);
	if (c->strategy != STRATEGY_SPLICE)
		return 0;
	if (pipe2(c->stage, O_CLOEXEC) < 0)
		return -errno;
	/* Above fs.pipe-max-size needs CAP_SYS_RESOURCE, which the handler has; elsewhere take what is granted. */
	r = io_set_pipe_size(c->stage[1], c->o->chunk, PIPE_FLOOR);
	if (r < 0)
		return r;
	return 0;
}

static void copy_teardown(struct copy *c)
{
	int saved = errno;

	if (c->ahead) {
		prefetch_stop(&c->pf);
		c->st->in_calls += c->pf.calls;
		c->ahead = false;
	}
	fd_close(&c->stage[0]);
	fd_close(&c->stage[1]);
	free(c->buf);
	grid_free(&c->grid);
	if (c->compress)
		compressor_free(&c->z);
	if (c->encrypt)
		age_writer_free(&c->age);
	errno = saved;
}

/*
 * Stops the copy at a limit, saying whether the input had more: the caller, who opened it, then closes it, so that
 * the kernel stops dumping what would not be kept.
 */
static void stop_at_limit(struct copy *c, enum limit which)
{
	c->st->truncated = head_left(c) > 0 || input_has_more(c);
	if (c->st->truncated)
		c->st->limit = which;
}

/*
 * Plans the chunk and reserves its blocks under the lock, so that concurrent captures see each other's
 * preallocations in statfs and each other's reservations in the hooks. Returns 0 or -errno; *want 0 means stop.
 */
static int reserve_chunk(struct copy *c, size_t *want, enum limit *which)
{
	int r;

	r = room_lock(&c->room);
	if (r < 0)
		return r;
	c->room.held = held(c);
	c->room.unwritten = c->grid.len;
	/*
	 * A chunk reserved ahead is in statfs; a sparse one, or a packed one not reserved (through zstd, or not on
	 * ext4), the others learn of from the ledger (one with nothing to reserve, prealloc=none or a file system
	 * without fallocate, is counted as reserved).
	 */
	c->room.unreserved = c->sparse || (c->packed && !reserves_chunk(c));
	r = room_plan(&c->room, want, which);
	if (r == 0 && *want > 0) {
		r = prealloc(c, *want);
		if (r < 0) {
			c->st->space_error = r;
			*which = LIMIT_KEEP_FREE;
			*want = 0;
			r = 0;
		}
	}
	room_unlock(&c->room);
	return r;
}


/*
 * Compressing, whether the data so far shrinks too little to be worth writing twice (the raw core is there, whole):
 * a probe's worth of data came out at more than probe_pct % of its size. Data, not input: a raw core's holes (idle
 * threads' stacks, say) take nothing on disk, and compressing them to nothing saves nothing.
 */
static bool not_worth_it(struct copy *c)
{
	const struct engine_opts *o = c->o;
	uint64_t data;

	if (!c->compress || !o->probe_pct || !o->probe || c->st->input < o->probe)
		return false;
	data = c->st->input_data = copy_input_data(c);
	return data >= o->probe && c->z.written * 100 > data * o->probe_pct;
}

/*
 * Compressed, a chunk ends with what zstd holds written out. Its threads keep input the room has not seen (a job of
 * 512 KiB per worker, and more queued): written after the next check, it took a 1 GiB btrfs 295 KB under KeepFree,
 * measured. Flushed, a chunk's output is bounded by its own input, which its budget counts. 0 or -errno.
 */
static int end_chunk(struct copy *c)
{
	return c->compress && c->z.open ? compressor_feed(&c->z, NULL, 0, FEED_FLUSH, copy_write_packed, c) : 0;
}

/*
 * Compressing as the core comes (not a file: that waits for the disk), whether the next chunks go through zstd or
 * stored (compressor_store: raw blocks, zero pages as RLE ones, at a raw core's cost). Stored, after a chunk zstd
 * fell behind on (most of its reads found the input full: the kernel waited for us, and zstd took a good part of
 * the time) or that did not shrink; from then on every PACE_PROBE-th chunk (then every 16th, ...) goes through zstd
 * again, and decides anew. The file stays one zstd stream of frames. in, out: the chunk's bytes; us: its time.
 */
static void pace(struct copy *c, uint64_t in, uint64_t out, uint64_t us)
{
	unsigned reads = c->ready + c->starved;
	bool raw = c->sampled_raw || out * 100 > (in - c->zero_in) * PACE_RAW_PCT;
	bool behind = c->ready * 100 >= reads * PACE_READY_PCT && c->z_us * 100 > us * PACE_ZSTD_PCT;

	if (!c->compress || c->in_regular || in < PACE_MIN)
		return;
	if (c->store && !c->sampled_raw) {
		c->st->stored_in += in;
		c->st->stored_chunks++;
		c->store = ++c->stored_run < c->probe_every;
		return;
	}
	c->st->zstd_chunks++;
	/* A probe that finds zstd behind again waits twice as long for the next: a fast disk and a slow CPU stay so. */
	if (!raw && !behind) {
		c->probe_every = PACE_PROBE;
		c->stored_run = 0;
		return;
	}
	if (c->stored_run > 0 && c->probe_every < PACE_PROBE_MAX)
		c->probe_every *= 2;
	c->store = true;
	c->stored_run = 0;
	*(raw ? &c->st->paced_raw : &c->st->paced_behind) += 1;
}

/*
 * A probe (the first chunk, or one after stored chunks: pace(); of PACE_MIN or more) is judged on its first
 * PACE_SAMPLE bytes as it goes: zstd's output is flushed there, and a sample that did not shrink sends the rest of
 * the chunk out stored; one that did leaves the chunk to zstd, judged at its end as any. A probe of incompressible
 * memory then costs zstd a MiB, not a chunk of 16 (1 GiB of random data, pipe mode, the four probes: 0.04-0.08 s
 * of a 0.85 s release).
 */
static void plan_sample(struct copy *c, size_t want)
{
	c->sampled_raw = false;
	c->sampling = c->compress && !c->in_regular && !c->store && want >= PACE_MIN &&
		      (c->st->chunks == 0 || c->stored_run > 0);
	c->sample_in = 0;
	c->sample_out = c->z.written;
}

/*
 * After n more bytes of a probe went to zstd (move.c): the judgement, once PACE_SAMPLE of them did, on their data as
 * pace() judges a chunk (zero_in is the sample's: it began with the chunk). 0 or -errno.
 */
int copy_sample(struct copy *c, size_t n)
{
	int r;

	c->sample_in += n;
	if (c->sample_in < PACE_SAMPLE)
		return 0;
	c->sampling = false;
	r = compressor_feed(&c->z, NULL, 0, FEED_FLUSH, copy_write_packed, c);
	if (r == 0 && (c->z.written - c->sample_out) * 100 > (c->sample_in - c->zero_in) * PACE_RAW_PCT) {
		c->store = c->sampled_raw = true;
		c->st->sampled_raw++;
	}
	return r;
}

/* Runs one chunk: room check and preallocation, the move, hygiene. Returns 1 to go on, 0 when done, or -errno. */
static int copy_step(struct copy *c)
{
	enum limit which = LIMIT_NONE;
	size_t want = 0;
	uint64_t t0, emitted;
	ssize_t n;
	int r;

	/*
	 * Page-cache hygiene around the preallocation (Linus Torvalds' pattern, reordered): no write may be in
	 * flight while fallocate runs, as ext4 merges a new unwritten extent into one under I/O and warns when that
	 * I/O completes. So: wait for the chunk before last, preallocate, then start writeback of the last chunk,
	 * which proceeds while this one is copied.
	 */
	settle(c);
	t0 = clock_us();
	emitted = c->emitted;
	c->z_us = c->zero_in = 0;
	c->ready = c->starved = 0;
	r = reserve_chunk(c, &want, &which);
	if (r < 0)
		return r;
	plan_sample(c, want);
	if (want == 0) {
		stop_at_limit(c, which);
		return 0;
	}
	start_writeback(c);
	n = move_chunk(c, want);
	if (n < 0)
		return (int)n;
	r = end_chunk(c);
	if (r < 0)
		return r;
	c->st->chunks++;
	c->st->input += (uint64_t)n;
	pace(c, (uint64_t)n, c->packed ? c->emitted - emitted : 0, clock_us() - t0);
	if (not_worth_it(c))
		return -EDOM;
	c->pend_off = c->off;
	/*
	 * Compressed, the file grows by what zstd has emitted so far, not by what was read, less what stored frames
	 * left past the grid: the chunk ends where its writes did, on the grid (grid.c), and its writeback with it.
	 */
	c->off = c->packed ? c->emitted - c->grid.len : c->off + (uint64_t)n;
	c->pend_len = c->off - c->pend_off;
	if (c->o->progress)
		c->o->progress(c->o->progress_ctx, c->out, c->off, !c->packed, c->o->head, c->st->head_bytes);
	/* A move of nothing happens only at the end of the input; never spin on it. */
	return (c->eof && head_left(c) == 0) || n == 0 ? 0 : 1;
}

/* Leaves the file at exactly the bytes written, on disk, and out of the page cache. */
static int copy_finish(struct copy *c)
{
	struct stat st;
	uint64_t t0;
	int r = 0, f;

	flusher_stop(&c->flush);
	c->st->flushes = c->flush.flushes;
	/* Let all writeback finish before trimming the preallocation, for the reason given in copy_step(). */
	if (c->o->hygiene)
		(void) sync_file_range(c->out, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				       SYNC_FILE_RANGE_WAIT_AFTER);
	/* Only a regular file has a size to trim and data to sync (the benchmark's null sink is /dev/null). */
	if (!c->regular)
		return 0;
	/*
	 * Preallocated blocks past the end are given back by a truncation to at most the current size; a file that
	 * ends in a hole is then extended to its size, which allocates nothing.
	 */
	if (fstat(c->out, &st) == 0 && (uint64_t)st.st_size < c->off && ftruncate(c->out, st.st_size) < 0)
		r = -errno;
	if (r == 0 && ftruncate(c->out, (off_t)c->off) < 0)
		r = -errno;
	if (r < 0)
		c->st->failed_at = "trimming the file";
	/*
	 * A failed sync leaves bytes that may never reach the disk: not a core to keep, whatever its size. (A test
	 * build plants the bug the power-cut test must catch: the sync after the name, store_publish(), with no
	 * writeback before it.)
	 */
	t0 = clock_us();
#ifdef CORESINK_TEST_PLANT_LINK_BEFORE_SYNC
	f = 0;
#else
	f = io_fdatasync(c->out);
#endif
	c->st->sync_us = clock_us() - t0;
	if (f < 0 && r == 0) {
		r = f;
		c->st->failed_at = "syncing the file to disk";
	}
	if (c->o->hygiene)
		(void) posix_fadvise(c->out, 0, 0, POSIX_FADV_DONTNEED);
	if (fstat(c->out, &st) == 0)
		c->st->allocated = (uint64_t)st.st_blocks * 512;
	return r;
}

/*
 * A packed file's ends after its last chunk (r: how the copy went): first what stored frames left past the grid
 * (dropped by a failed write, grid.c; engine_copy() then takes the file's position). A whole input closes the zstd
 * frame; a cut one (by a limit, or the disk: best effort there, a file's last block has room for it) leaves the
 * stream open, which no reader takes for whole. Cut or not, an encrypted file gets its last chunk: else not a byte
 * of it could be read back. r, or the first error of these.
 */
static int end_streams(struct copy *c, int r)
{
	int e = copy_flush_carry(c);

	r = r < 0 ? r : e;
	if (c->packed)
		c->off = c->emitted;
	if (r == 0 && c->compress && !c->st->truncated && (c->z.open || c->z.written == 0)) {
		e = compressor_feed(&c->z, NULL, 0, FEED_END, copy_write_packed, c);
		c->off = c->emitted;
	} else if (c->compress && ((r == 0 && c->st->truncated) || copy_out_of_space(r))) {
		e = compressor_leave_open(&c->z, copy_write_packed, c);
		c->off = c->emitted;
	}
	r = r < 0 ? r : e;
	if ((r == 0 || copy_out_of_space(r)) && c->encrypt) {
		e = age_end(&c->age);
		r = r < 0 ? r : e;
		c->off = c->emitted;
	}
	return r;
}

/*
 * Copies the input into the output file (opened for writing at offset 0) until EOF, the reserve, or an error.
 * Returns 0 or -errno; either way st->bytes is what the file holds, and the file keeps it.
 */
int engine_copy(int in, int out, const struct engine_opts *o, struct engine_stats *st)
{
	struct copy c = { .in = in, .out = out, .o = o, .st = st, .strategy = o->strategy, .stage = { -1, -1 } };
	int r, f;

	*st = (struct engine_stats) { .min_avail = UINT64_MAX };
	r = copy_setup(&c);
	if (r == 0)
		r = copy_begin(&c);
	while (r == 0 && (r = copy_step(&c)) > 0)
		r = 0;
	r = end_streams(&c, r);
	if (copy_out_of_space(r)) {
		/* Another writer took the room between the check and the write: keep what was written. */
		st->space_error = r;
		st->truncated = true;
		st->limit = LIMIT_KEEP_FREE;
		r = 0;
	}
	if (r < 0 || st->truncated) {
		/* Errors may leave a partial write; the file position says what really arrived. */
		off_t pos = lseek(out, 0, SEEK_CUR);

		if (pos >= 0)
			c.off = (uint64_t)pos;
	}
	if ((c.ahead && c.pf.silent) || (o->minicore && o->minicore->silent))
		st->silent = true;
	/*
	 * The input ended, no limit cut it, and it holds less than its headers announce, or it fell silent (socket
	 * mode's SocketSilenceSec=, its end taken here): the dump was stopped.
	 */
	if (r == 0 && !st->truncated && (st->silent || (st->expected && st->input < st->expected)))
		st->cut_short = true;
	f = copy_finish(&c);
	st->bytes = c.off;
	st->compressed = c.compress;
	st->encrypted = c.encrypt;
	room_result(&c.room);
	copy_teardown(&c);
	return r < 0 ? r : f;
}
