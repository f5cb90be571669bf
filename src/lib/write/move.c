/*
 * move.c: how an engine copy's bytes move (engine.c runs the chunks). The input read: from the read-ahead ring,
 * through the minimal core's filter, or a file left out of the page cache behind the reads; the output written:
 * dense, sparse (runs of data, reserved first where that keeps the reserve), or compressed; and the strategies
 * that move a chunk: read/write, the staged splice, the naive splice, and the switch to read/write for good when the
 * kernel refuses splice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base.h"
#include "engine-internal.h"
#include "holes.h"
#include "minicore.h"

/* How long the input may say nothing before it is taken as ended (SocketSilenceSec=): poll's timeout, -1 none. */
static int silence(const struct copy *c)
{
	return c->o->silence_ms > 0 ? c->o->silence_ms : -1;
}

/* Errors that mean "splice cannot do this pair of files", after which read/write does the rest. */
static bool splice_refused(int r)
{
	return r == -EINVAL || r == -ENOSYS || r == -EOPNOTSUPP || r == -EBADF;
}

bool copy_out_of_space(int r)
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
static int reserve(struct copy *c, int mode, uint64_t off, uint64_t len)
{
	if (c->no_fallocate)
		return 1;
	if (fallocate(c->out, mode, (off_t)off, (off_t)len) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return copy_out_of_space(-errno) ? -errno : 0;
	c->no_fallocate = true;
	c->st->prealloc_fallback = true;
	return 1;
}

/*
 * Reserves len bytes at off (reserve()). Refused for want of space where the room had said yes, it is asked once
 * more after old cores made room (room_cure): a transient ENOSPC is not to cost the core while old ones are there.
 * locked: the caller holds the room's lock already.
 */
int copy_reserve_blocks(struct copy *c, int mode, uint64_t off, uint64_t len, bool locked)
{
	int r = reserve(c, mode, off, len), made;

	if (!copy_out_of_space(r))
		return r;
	if (!locked && room_lock(&c->room) < 0)
		return r;
	made = room_cure(&c->room, len);
	if (!locked)
		room_unlock(&c->room);
	return made > 0 ? reserve(c, mode, off, len) : r;
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

/* Before n bytes are written at pos: their blocks reserved where reserve_run() says, the write counted. */
static int before_write(struct copy *c, off_t pos, size_t n)
{
	c->st->out_calls++;
	return reserve_run(c, pos) ? copy_reserve_blocks(c, FALLOC_FL_KEEP_SIZE, (uint64_t)pos, n, false) : 0;
}

/* Writes one run of data at pos (holes.c's writer), its blocks reserved first where reserve_run() says. */
static int write_run(void *ctx, off_t pos, const char *buf, size_t n)
{
	struct copy *c = ctx;
	int r = before_write(c, pos, n);

	return r < 0 ? r : io_write_full(c->out, buf, n);
}

static int write_dense(void *ctx, const char *buf, size_t n)
{
	struct copy *c = ctx;

	c->st->out_calls++;
	return io_write_full(c->out, buf, n);
}

/* Appends n bytes to a packed file (compressed, encrypted), reserved first as write_run() says. 0 or -errno. */
int copy_emit(void *ctx, const char *buf, size_t n)
{
	struct copy *c = ctx;
	int r = copy_flush_carry(c);

	r = r < 0 ? r : write_run(c, (off_t)c->emitted, buf, n);

	if (r == 0)
		c->emitted += n;
	return r;
}

/* What zstd emitted: appended, or encrypted first (the age writer then appends through copy_emit). */
int copy_write_packed(void *ctx, const char *buf, size_t n)
{
	struct copy *c = ctx;

	return c->encrypt ? age_write(&c->age, buf, n) : copy_emit(c, buf, n);
}

/* Writes len bytes of n pieces at pos (grid.c's writer), reserved first as write_run() says. 0 or -errno. */
static int put_pieces(void *ctx, uint64_t pos, struct iovec *iov, int n, size_t len)
{
	struct copy *c = ctx;
	int r = before_write(c, (off_t)pos, len);

	return r < 0 ? r : io_writev_full(c->out, iov, n);
}

/* Writes what a stored frame left past the grid (grid.c), before any other bytes of the file. 0 or -errno. */
int copy_flush_carry(struct copy *c)
{
	return grid_flush(&c->grid, c->emitted - c->grid.len, put_pieces, c);
}

/*
 * A stored frame (compressor_store): appended from its buffers, on the grid (grid.c: what passes its last line is
 * copied for the next write), or encrypted from them.
 */
int copy_writev_packed(void *ctx, struct iovec *iov, int n, size_t total)
{
	struct copy *c = ctx;
	int r = 0;

	if (c->encrypt) {
		for (int i = 0; r == 0 && i < n; i++)
			r = age_write(&c->age, iov[i].iov_base, iov[i].iov_len);
		return r;
	}
	/* On the grid: the page cache's folios and the disk's requests as a raw core's (grid.c). */
	r = grid_writev(&c->grid, c->emitted - c->grid.len, iov, n, total, put_pieces, c);
	if (r == 0)
		c->emitted += total;
	return r;
}

/* Writes n bytes of buf to the output at its position: compressed (or stored), sparse, or as they are. 0 or -errno. */
int copy_write(struct copy *c, const char *buf, size_t n)
{
	if (c->compress && c->store)
		return compressor_store(&c->z, buf, n, copy_write_packed, copy_writev_packed, c);
	if (c->compress)
		return compressor_feed(&c->z, buf, n, FEED_MORE, copy_write_packed, c);
	if (c->encrypt)
		return age_write(&c->age, buf, n);
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
ssize_t copy_read(struct copy *c, void *buf, size_t n)
{
	if (c->ahead)
		return prefetch_read(&c->pf, buf, n);
	if (c->o->minicore)
		return minicore_read(c->o->minicore, buf, n, &c->st->in_calls);
	if (c->o->silence_ms > 0)
		return io_read_full_within(c->in, buf, n, c->o->silence_ms, &c->st->in_calls, &c->st->silent);
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
	got = fd == c->in ? copy_read(c, c->buf, n) : io_read_full(fd, c->buf, n, NULL);
	if (got < 0)
		return got;
	input_read(c, fd, got);
	/* io_read_full() comes back short only at the end of its input. */
	if ((size_t)got < n && fd == c->in)
		c->eof = true;
	*data = c->buf;
	return got;
}

/*
 * Compressing: whether the input already held half of the n bytes about to be read (the kernel had filled the pipe
 * and waited for us), or, read ahead by a thread (socket mode), half of the ring was full; counted for pace() in
 * engine.c. Not known through a minimal core's filter: counted as not ready.
 */
static void input_ready(struct copy *c, size_t n)
{
	int avail = 0;
	bool ready = c->ahead ? prefetch_filled(&c->pf) * 2 >= c->pf.n :
		     !c->o->minicore && ioctl(c->in, FIONREAD, &avail) == 0 && (size_t)avail >= n / 2;

	if (ready)
		c->ready++;
	else
		c->starved++;
}

/*
 * Writes n bytes of data as copy_write() does, in a chunk through zstd as the core comes, measuring what pace()
 * (engine.c) judges it on: the zero pages zstd is given, which stored blocks would keep as small, and the time zstd
 * and its writes took; a probe is judged once its sample is in (copy_sample). 0 or -errno.
 */
static int write_paced(struct copy *c, const char *data, size_t n)
{
	uint64_t t0;
	int r;

	c->zero_in += holes_zero_bytes(data, n);
	t0 = clock_us();
	r = copy_write(c, data, n);
	if (r == 0 && c->sampling)
		r = copy_sample(c, n);
	c->z_us += clock_us() - t0;
	return r;
}

/*
 * How much of left the next read takes: a buffer's worth, or stored from the read-ahead ring, a whole buffer of
 * the ring (a frame and a write each: compressor_store). The input's read-ahead thread starts here where it waited
 * for the chunks to go out stored (engine.c, copy_read_ahead()).
 */
static size_t next_read(struct copy *c, int fd, uint64_t left)
{
	size_t step = c->o->buffer;

	if (fd == c->in)
		copy_read_ahead(c);
	if (fd == c->in && c->ahead && c->store)
		step = c->pf.size;
	return left < step ? (size_t)left : step;
}

/* Copies up to len bytes from fd to the output through the buffer: bytes copied, or -errno. */
static ssize_t rw_copy(struct copy *c, int fd, uint64_t len)
{
	uint64_t done = 0;
	int r = 0;

	while (r == 0 && done < len && !c->eof) {
		size_t n = next_read(c, fd, len - done);
		const char *data;
		/* pace() judges zstd's chunks as the core comes: not a stored chunk's reads, nor a file's. */
		bool pacing = c->compress && !c->store && fd == c->in && !c->in_regular;
		ssize_t got;

		if (pacing)
			input_ready(c, n);
		got = take_input(c, fd, &data, n);
		if (got <= 0)
			return got < 0 ? got : (ssize_t)done;
		r = pacing ? write_paced(c, data, (size_t)got) : copy_write(c, data, (size_t)got);
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
		r = io_wait_readable(c->in, silence(c));
		if (r == -ETIME) {
			/* The input said nothing past SocketSilenceSec: taken as its end (engine_copy says it was silent). */
			c->eof = c->st->silent = true;
			break;
		}
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
	c->st->fallback_error = r;
	c->strategy = STRATEGY_READWRITE;
	n = rw_copy(c, c->stage[0], (uint64_t)filled - moved);
	return n < 0 ? n : (ssize_t)(moved + (size_t)n);
}

/* Splices straight from the input to the file, as far as want: bytes written, or -errno. */
static ssize_t move_naive(struct copy *c, size_t want)
{
	size_t done = 0;

	while (done < want) {
		ssize_t r = c->o->silence_ms > 0 ? io_wait_readable(c->in, silence(c)) : 0;

		if (r == -ETIME) {
			c->eof = c->st->silent = true;
			break;
		}
		r = r < 0 ? r : io_splice(c->in, c->out, want - done, SPLICE_F_MOVE);
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
ssize_t copy_move(struct copy *c, size_t want)
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
		c->st->fallback_error = (int)r;
		c->strategy = STRATEGY_READWRITE;
		return rw_copy(c, c->in, want);
	}
	return r;
}

/*
 * The bytes of data read so far: the input less its holes, where the input is a file (the raw core, whose runs of
 * zeros are holes already and cost nothing on disk). The holes are counted with SEEK_HOLE as the reads go, and the
 * read position is put back.
 */
uint64_t copy_input_data(struct copy *c)
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
