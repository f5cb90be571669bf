/*
 * engine.c: copies a core from a pipe into a file in chunks: staged splice (or read/write), the room for each chunk
 * asked of room.c and its blocks preallocated, page-cache hygiene behind it, and a transparent switch to read/write
 * when the kernel refuses splice. The same loop compresses a stored core into a zstd file (compress.c), with the
 * same checks: the budget of a chunk, in input bytes, bounds its compressed output. At a limit it stops and says
 * so; its caller closes the input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "basics.h"
#include "compress.h"
#include "elfcore.h"
#include "engine.h"
#include "holes.h"
#include "io.h"
#include "prefetch.h"
#include "room.h"
#include "space.h"

#define PIPE_FLOOR (64 * 1024)

/* The state of one copy. */
struct copy {
	int in, out;
	const struct engine_opts *o;
	struct engine_stats *st;
	enum strategy strategy;
	int stage[2];             /* the private pipe of the staged splice */
	char *buf;                /* the read/write buffer, allocated on first use */
	uint64_t off;             /* bytes written so far: the file position */
	uint64_t pend_off, pend_len;  /* the chunk written last, whose writeback has not started */
	uint64_t prev_off, prev_len;  /* the chunk under writeback */
	bool eof;
	bool head_read;           /* the head is in o->head (st->head_bytes of it); head_done of them are written */
	size_t head_done;
	bool regular;             /* the output is a regular file: there is a size to trim and data to sync */
	bool no_fallocate;        /* the file system said EOPNOTSUPP once; ftruncate from then on */
	bool sparse;              /* zero pages become holes (o->sparse, and the output is a regular file) */
	bool compress;            /* the output is a zstd frame (o->compress) */
	struct compressor z;
	bool in_regular;          /* the input is a file (the raw core being compressed): dropped from the cache as read */
	uint64_t in_off;          /* bytes read from the input */
	uint64_t in_holes, in_scanned;  /* the input's holes, counted as far as in_scanned (input_data) */
	bool reserve_runs;        /* fallocate each run of data before writing it (write_run): plan_reserve() */
	bool btrfs;
	struct room room;         /* how much of each chunk may be written (room.c) */
	struct prefetch pf;       /* the input read ahead (o->read_ahead), when ahead */
	bool ahead;
};


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
		.hygiene = true,
		.sparse = true,
		.min_hole = PAGE_BYTES,
		.check_space = true,
	};
}

/* Errors that mean "splice cannot do this pair of files", after which read/write does the rest. */
static bool splice_refused(int r)
{
	return r == -EINVAL || r == -ENOSYS || r == -EOPNOTSUPP || r == -EBADF;
}

static bool out_of_space(int r)
{
	return r == -ENOSPC || r == -EDQUOT || r == -EFBIG;
}

static int ensure_buffer(struct copy *c)
{
	void *p;

	if (c->buf)
		return 0;
	if (posix_memalign(&p, PAGE_BYTES, c->o->buffer) != 0)
		return -ENOMEM;
	c->buf = p;
	return 0;
}

/*
 * fallocate() with the fallback every caller needs: a file system without it (EOPNOTSUPP: ext2, ext3, some network
 * file systems) is noted once and never asked again. Preallocation only helps, so only running out of space is an
 * error. 0 reserved, 1 not supported here, or -errno.
 */
static int reserve_blocks(struct copy *c, int mode, uint64_t off, uint64_t len)
{
	if (c->no_fallocate)
		return 1;
	if (fallocate(c->out, mode, (off_t)off, (off_t)len) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return out_of_space(-errno) ? -errno : 0;
	c->no_fallocate = true;
	c->st->prealloc_fallback = true;
	return 1;
}

/*
 * Whether a run of data at pos gets its blocks reserved before it is written. Without a reservation of its own, a
 * growing file gets blocks past its end on speculation, which statfs counts as used: xfs's speculative
 * preallocation (1 MiB past the reserve, measured), ext4's mballoc normalizing requests (2 MiB). But on ext4 not
 * next to the chunk under writeback: ext4 merges the new extent into one under I/O and warns when that I/O completes
 * (ext4_convert_unwritten_extents_endio), as copy_step() explains.
 */
static bool reserve_run(const struct copy *c, off_t pos)
{
	bool next_to_writeback = c->prev_len > 0 && (uint64_t)pos == c->prev_off + c->prev_len;

	return c->reserve_runs && !(c->room.ext4 && next_to_writeback);
}

/* Writes one run of data at pos (holes.c's writer), its blocks reserved first where reserve_run() says. */
static int write_run(void *ctx, off_t pos, const char *buf, size_t n)
{
	struct copy *c = ctx;
	int r = reserve_run(c, pos) ? reserve_blocks(c, FALLOC_FL_KEEP_SIZE, (uint64_t)pos, n) : 0;

	c->st->out_calls++;
	return r < 0 ? r : io_write_full(c->out, buf, n);
}

static int write_dense(void *ctx, const char *buf, size_t n)
{
	struct copy *c = ctx;

	c->st->out_calls++;
	return io_write_full(c->out, buf, n);
}

/* Writes what zstd emitted at the end of the compressed file, reserved first as write_run() says. */
static int write_packed(void *ctx, const char *buf, size_t n)
{
	struct copy *c = ctx;

	return write_run(c, (off_t)c->z.written, buf, n);
}

/* Writes n bytes of buf to the output at its position: compressed, sparse, or as they are. 0 or -errno. */
static int write_out(struct copy *c, const char *buf, size_t n)
{
	if (c->compress)
		return compressor_feed(&c->z, buf, n, FEED_MORE, write_packed, c);
	if (c->sparse)
		return holes_write(c->out, buf, n, c->o->min_hole, write_run, c, &c->st->holes);
	return write_dense(c, buf, n);
}

/*
 * A file read as input (the raw core being compressed) leaves the page cache behind the reads, a chunk at a time.
 * Everything read so far is dropped, not just the last read: the page cache holds large folios (several MiB), and
 * fadvise drops only those wholly inside its range, so one that straddled the last boundary goes the next time.
 */
static void input_read(struct copy *c, int fd, ssize_t got)
{
	uint64_t before = c->in_off;

	if (fd != c->in || got <= 0)
		return;
	c->in_off += (uint64_t)got;
	if (c->in_regular && c->o->hygiene && c->in_off / c->o->chunk != before / c->o->chunk)
		(void) posix_fadvise(fd, 0, (off_t)c->in_off, POSIX_FADV_DONTNEED);
}

/*
 * Reads up to n bytes of the input: from the read-ahead ring, or through the minimal core's filter when there is
 * one. As io_read_full().
 */
static ssize_t read_input(struct copy *c, void *buf, size_t n)
{
	if (c->ahead)
		return prefetch_read(&c->pf, buf, n);
	if (c->o->minicore)
		return minicore_read(c->o->minicore, buf, n, &c->st->in_calls);
	return io_read_full(c->in, buf, n, &c->st->in_calls);
}

/*
 * Up to n bytes from fd, for rw_copy(): in place in the read-ahead ring, where fewer than n is not the end; else
 * read into the buffer. Bytes (*data points at them), 0 at the end, or -errno; c->eof says when the input ended.
 */
static ssize_t take_input(struct copy *c, int fd, const char **data, size_t n)
{
	ssize_t got;
	int r;

	if (fd == c->in && c->ahead) {
		got = prefetch_take(&c->pf, data, n);
		c->eof = got == 0;
		return got;
	}
	r = ensure_buffer(c);
	if (r < 0)
		return r;
	got = fd == c->in ? read_input(c, c->buf, n) : io_read_full(fd, c->buf, n, NULL);
	if (got < 0)
		return got;
	input_read(c, fd, got);
	/* io_read_full() comes back short only at the end of its input. */
	if ((size_t)got < n && fd == c->in)
		c->eof = true;
	*data = c->buf;
	return got;
}

/* Copies up to len bytes from fd to the output through the buffer: bytes copied, or -errno. */
static ssize_t rw_copy(struct copy *c, int fd, uint64_t len)
{
	uint64_t done = 0;
	int r = 0;

	while (r == 0 && done < len && !c->eof) {
		size_t n = len - done < c->o->buffer ? (size_t)(len - done) : c->o->buffer;
		const char *data;
		ssize_t got = take_input(c, fd, &data, n);

		if (got <= 0)
			return got < 0 ? got : (ssize_t)done;
		r = write_out(c, data, (size_t)got);
		if (fd == c->in && c->ahead)
			prefetch_release(&c->pf, (size_t)got);
		if (r == 0)
			done += (uint64_t)got;
	}
	return r < 0 ? r : (ssize_t)done;
}

/*
 * Fills the private pipe from the input with up to want bytes. The pipe fills by slots, not bytes (a slot may hold
 * a partial page), so the chunk is complete when the pipe is full, want is reached, or the input ends; waiting for
 * want bytes could block forever. Returns the bytes staged, or -errno when nothing could be staged.
 */
static ssize_t stage_fill(struct copy *c, size_t want)
{
	size_t filled = 0;

	while (filled < want) {
		ssize_t r = io_splice(c->in, c->stage[1], want - filled, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		c->st->in_calls++;
		if (r > 0) {
			filled += (size_t)r;
			continue;
		}
		if (r == 0) {
			c->eof = true;
			break;
		}
		if (r != -EAGAIN)
			return filled > 0 ? (ssize_t)filled : r;
		/* EAGAIN: the input is empty or the private pipe is full; only the first is worth waiting for. */
		r = io_pipe_is_full(c->stage[1]);
		if (r != 0)
			return r < 0 ? r : (ssize_t)filled;
		r = io_wait_readable(c->in);
		if (r < 0)
			return r;
	}
	return (ssize_t)filled;
}

/* Moves one chunk through the private pipe: bytes written, or -errno. A refused splice switches strategy. */
static ssize_t move_staged(struct copy *c, size_t want)
{
	ssize_t filled = stage_fill(c, want), n;
	size_t moved = 0;
	int r;

	if (filled <= 0)
		return filled;
	r = io_splice_all(c->stage[0], c->out, (size_t)filled, &moved, &c->st->out_calls);
	if (r == 0 || !splice_refused(r))
		return r < 0 ? r : (ssize_t)moved;

	/* The file refused splice: what is staged goes out by read/write, and so does the rest of the stream. */
	c->st->fell_back = true;
	c->st->fallback_error = -r;
	c->strategy = STRATEGY_READWRITE;
	n = rw_copy(c, c->stage[0], (uint64_t)filled - moved);
	return n < 0 ? n : (ssize_t)(moved + (size_t)n);
}

/* Splices straight from the input to the file, as far as want: bytes written, or -errno. */
static ssize_t move_naive(struct copy *c, size_t want)
{
	size_t done = 0;

	while (done < want) {
		ssize_t r = io_splice(c->in, c->out, want - done, SPLICE_F_MOVE);

		c->st->in_calls++;
		if (r < 0)
			return done > 0 ? (ssize_t)done : r;
		if (r == 0) {
			c->eof = true;
			break;
		}
		done += (size_t)r;
	}
	return (ssize_t)done;
}

/* Moves up to want bytes with the current strategy, switching to read/write for good if splice is refused. */
static ssize_t move_strategy(struct copy *c, size_t want)
{
	ssize_t r;

	switch (c->strategy) {
	case STRATEGY_SPLICE:
		r = move_staged(c, want);
		break;
	case STRATEGY_NAIVE_SPLICE:
		r = move_naive(c, want);
		break;
	default:
		return rw_copy(c, c->in, want);
	}
	if (r < 0 && splice_refused((int)r)) {
		/* Refused before a byte moved (the input cannot be spliced, or naive splice to this file). */
		c->st->fell_back = true;
		c->st->fallback_error = (int)-r;
		c->strategy = STRATEGY_READWRITE;
		return rw_copy(c, c->in, want);
	}
	return r;
}

static size_t head_left(const struct copy *c)
{
	return c->head_read ? c->st->head_bytes - c->head_done : 0;
}

/*
 * Reads the first bytes of the stream into the caller's head buffer before any is written, whatever the strategy:
 * they are read once, and the caller learns what the core's notes say without reading the file back.
 */
static int read_head(struct copy *c)
{
	ssize_t got = read_input(c, c->o->head, c->o->head_len);

	if (got < 0)
		return (int)got;
	if ((size_t)got < c->o->head_len)
		c->eof = true;
	c->st->head_bytes = (size_t)got;
	c->head_read = true;
	return 0;
}

/*
 * Whether runs of data get their blocks reserved as they are written (write_run): a copy whose chunks are not
 * preallocated, sparse or compressed. Not on btrfs: it may write a run into new blocks rather than the ones reserved
 * for it (copy on write), and statfs then counts both until its transaction commits: 36 MB under KeepFree for a
 * moment on a 1 GiB btrfs, measured, where writing without a reservation stayed above it (its late statfs is
 * handled by the baseline). Compressed, not on ext4 either, whose mballoc slack room.c counts instead: a reservation
 * there would sit next to the chunk under writeback at every chunk's start (reserve_run).
 */
static void plan_reserve(struct copy *c)
{
	bool kind = c->sparse || (c->compress && !c->room.ext4);

	c->reserve_runs = kind && c->regular && !c->btrfs &&
			  (c->o->prealloc == PREALLOC_KEEP_SIZE || c->o->prealloc == PREALLOC_EXTEND);
}

/*
 * Whether the core is compressed as it comes: when its program headers say it is larger than the room (KeepFree,
 * MaxUse), where the raw core would be cut and the compressed one may be whole. Not for MaxCoreSize or
 * RLIMIT_CORE, which count the core's own bytes. 0 or -errno.
 */
static int choose_compression(struct copy *c)
{
	enum limit which = LIMIT_NONE;
	uint64_t size;
	int r;

	if (!c->o->compress_short || c->compress || elfcore_size(c->o->head, c->st->head_bytes, &size) < 0)
		return 0;
	c->st->expected = size;
	r = room_lock(&c->room);
	if (r < 0)
		return r;
	r = room_fits(&c->room, size, &which);
	room_unlock(&c->room);
	if (r != 0 || (which != LIMIT_KEEP_FREE && which != LIMIT_MAX_USE))
		return r < 0 ? r : 0;
	r = compressor_init(&c->z, c->o->compress_short, c->o->compress_workers);
	if (r < 0)
		return r;
	c->compress = true;
	c->strategy = STRATEGY_READWRITE;
	c->sparse = false;
	c->room.unreserved = true;
	plan_reserve(c);
	return 0;
}

/* Once, before the first chunk: the head read, and whether the core is compressed as it comes. 0 or -errno. */
static int copy_begin(struct copy *c)
{
	int r;

	if (!c->o->head || c->o->head_len == 0)
		return 0;
	r = read_head(c);
	return r < 0 ? r : choose_compression(c);
}

/* Writes what is left of the head, as far as want. Bytes written, or -errno. */
static ssize_t move_head(struct copy *c, size_t want)
{
	size_t n = head_left(c) < want ? head_left(c) : want;
	int r = write_out(c, (const char *)c->o->head + c->head_done, n);

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
	r = move_strategy(c, want);
	return r < 0 ? (h > 0 ? h : r) : r + h;
}

/* What this capture holds on disk: written less its holes, and what it holds elsewhere (the raw core). */
static uint64_t held(const struct copy *c)
{
	return c->off - c->st->holes + c->o->held_base;
}

/*
 * Reserves the blocks of the next chunk. Where the file system has no fallocate (EOPNOTSUPP: ext2, ext3, some
 * network file systems) the file is extended with ftruncate instead, which at least sets its size once per chunk;
 * never posix_fallocate, which emulates by writing a byte per block. Only running out of space is an error.
 */
static int prealloc(struct copy *c, size_t len)
{
	int mode = c->o->prealloc == PREALLOC_KEEP_SIZE ? FALLOC_FL_KEEP_SIZE : 0, r;

	/*
	 * A sparse copy preallocates nothing: blocks reserved for pages that turn out to be zeros would have to be
	 * punched out again one by one, which costs ext4 more than the copy (12 s for a GiB with a zero page in
	 * three). Its chunk is counted in the ledger instead (plan_chunk), and ENOSPC keeps what was written.
	 */
	/* A compressed chunk's size is not known before it is written: nothing is preallocated either. */
	if (c->o->prealloc == PREALLOC_NONE || c->sparse || c->compress)
		return 0;
	if (c->o->prealloc != PREALLOC_FTRUNCATE) {
		r = reserve_blocks(c, mode, c->off, len);
		if (r <= 0)
			return r;
	}
	/* Writes go to the file position, so a size set ahead of them changes nothing; copy_finish trims it. */
	return ftruncate(c->out, (off_t)(c->off + len)) < 0 && out_of_space(-errno) ? -errno : 0;
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

	return read_input(c, &b, 1) == 1;
}

static int copy_setup(struct copy *c)
{
	struct statfs sfs;
	struct stat st;
	int r;

	c->regular = fstat(c->out, &st) == 0 && S_ISREG(st.st_mode);
	c->in_regular = fstat(c->in, &st) == 0 && S_ISREG(st.st_mode);
	/* A compressed file is written by read/write, dense: zstd leaves no page of zeros. */
	/* A minimal core is made of what passes through the buffer. */
	if (c->o->minicore)
		c->strategy = STRATEGY_READWRITE;
	if (c->o->compress) {
		r = compressor_init(&c->z, c->o->compress, c->o->compress_workers);
		if (r < 0)
			return r;
		c->compress = true;
		c->strategy = STRATEGY_READWRITE;
	}
	/*
	 * Holes need the data in the buffer and a file position of its own: read/write into a regular file not opened
	 * for appending. A splice strategy stores dense, its fallback included.
	 */
	c->sparse = c->o->sparse && c->regular && c->strategy == STRATEGY_READWRITE && !c->compress &&
		    !(fcntl(c->out, F_GETFL) & O_APPEND);
	if (fstatfs(c->out, &sfs) < 0)
		sfs.f_type = 0;
	room_init(&c->room, c->out, c->o, c->st, c->sparse || c->compress);
	c->btrfs = (unsigned long)sfs.f_type == BTRFS_SUPER_MAGIC;
	plan_reserve(c);
	/* Best effort: the kernel's core pipe holds 64 KiB; a larger one lets it run ahead while a chunk is flushed. */
	if (c->o->in_pipe > 0)
		(void) io_set_pipe_size(c->in, c->o->in_pipe, PIPE_FLOOR);
	/* Best effort too: without a thread, the copy reads in its own. */
	if (c->o->read_ahead > 0 && c->strategy == STRATEGY_READWRITE && !c->o->minicore && !c->in_regular)
		c->ahead = prefetch_start(&c->pf, c->in, c->o->buffer, c->o->read_ahead) == 0;
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
	if (c->stage[0] >= 0)
		(void) close(c->stage[0]);
	if (c->stage[1] >= 0)
		(void) close(c->stage[1]);
	free(c->buf);
	if (c->compress)
		compressor_free(&c->z);
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
	r = room_plan(&c->room, want, which);
	if (r == 0 && *want > 0) {
		r = prealloc(c, *want);
		if (r < 0) {
			c->st->space_error = -r;
			*which = LIMIT_KEEP_FREE;
			*want = 0;
			r = 0;
		}
	}
	room_unlock(&c->room);
	return r;
}

/*
 * The bytes of data read so far: the input less its holes, where the input is a file (the raw core, whose runs of
 * zeros are holes already and cost nothing on disk). The holes are counted with SEEK_HOLE as the reads go, and the
 * read position is put back.
 */
static uint64_t input_data(struct copy *c)
{
	off_t pos = (off_t)c->in_scanned, end = (off_t)c->in_off;

	if (!c->in_regular)
		return c->st->input;
	while (pos < end) {
		off_t hole = lseek(c->in, pos, SEEK_HOLE), data;

		if (hole < 0 || hole >= end)
			break;
		data = lseek(c->in, hole, SEEK_DATA);
		if (data < 0 || data > end)
			data = end;
		c->in_holes += (uint64_t)(data - hole);
		pos = data;
	}
	c->in_scanned = c->in_off;
	(void) lseek(c->in, end, SEEK_SET);
	return c->in_off - c->in_holes;
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
	data = c->st->input_data = input_data(c);
	return data >= o->probe && c->z.written * 100 > data * o->probe_pct;
}

/*
 * Compressed, a chunk ends with what zstd holds written out. Its threads keep input the room has not seen (a job of
 * 512 KiB per worker, and more queued): written after the next check, it took a 1 GiB btrfs 295 KB under KeepFree,
 * measured. Flushed, a chunk's output is bounded by its own input, which its budget counts. 0 or -errno.
 */
static int end_chunk(struct copy *c)
{
	return c->compress ? compressor_feed(&c->z, NULL, 0, FEED_FLUSH, write_packed, c) : 0;
}

/* Runs one chunk: room check and preallocation, the move, hygiene. Returns 1 to go on, 0 when done, or -errno. */
static int copy_step(struct copy *c)
{
	enum limit which = LIMIT_NONE;
	size_t want = 0;
	ssize_t n;
	int r;

	/*
	 * Page-cache hygiene around the preallocation (Linus Torvalds' pattern, reordered): no write may be in
	 * flight while fallocate runs, as ext4 merges a new unwritten extent into one under I/O and warns when that
	 * I/O completes. So: wait for the chunk before last, preallocate, then start writeback of the last chunk,
	 * which proceeds while this one is copied.
	 */
	settle(c);
	r = reserve_chunk(c, &want, &which);
	if (r < 0)
		return r;
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
	if (not_worth_it(c))
		return -EDOM;
	c->pend_off = c->off;
	/* Compressed, the file grows by what zstd has emitted so far, not by what was read. */
	c->off = c->compress ? c->z.written : c->off + (uint64_t)n;
	c->pend_len = c->off - c->pend_off;
	/* A move of nothing happens only at the end of the input; never spin on it. */
	return (c->eof && head_left(c) == 0) || n == 0 ? 0 : 1;
}

/* Leaves the file at exactly the bytes written, on disk, and out of the page cache. */
static int copy_finish(struct copy *c)
{
	struct stat st;
	int r = 0;

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
	if (fdatasync(c->out) < 0 && r == 0)
		r = -errno;
	if (c->o->hygiene)
		(void) posix_fadvise(c->out, 0, 0, POSIX_FADV_DONTNEED);
	if (fstat(c->out, &st) == 0)
		c->st->allocated = (uint64_t)st.st_blocks * 512;
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
	/* A complete input closes the frame; a cut one leaves it open, which no reader takes for whole. */
	if (r == 0 && c.compress && !st->truncated) {
		r = compressor_feed(&c.z, NULL, 0, FEED_END, write_packed, &c);
		c.off = c.z.written;
	}
	if (out_of_space(r)) {
		/* Another writer took the room between the check and the write: keep what was written. */
		st->space_error = -r;
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
	f = copy_finish(&c);
	st->bytes = c.off;
	st->compressed = c.compress;
	st->baseline = c.room.have_baseline ? c.room.baseline : 0;
	copy_teardown(&c);
	return r < 0 ? r : f;
}
