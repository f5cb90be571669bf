/*
 * engine.c: copies a core from a pipe into a file in chunks: staged splice (or read/write), a free-space check
 * and a preallocation before each chunk, page-cache hygiene behind it, and a transparent switch to read/write
 * when the kernel refuses splice. The same loop compresses a stored core into a zstd file (compress.c), with the
 * same checks: the budget of a chunk, in input bytes, bounds its compressed output.
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

#include "basics.h"
#include "compress.h"
#include "engine.h"
#include "io.h"
#include "space.h"

#define PIPE_FLOOR (64 * 1024)
#define BTRFS_MAGIC 0x9123683e   /* linux/magic.h: BTRFS_SUPER_MAGIC */
#define EXT4_MAGIC 0xef53        /* linux/magic.h: EXT4_SUPER_MAGIC, ext2 and ext3 alike */
/* statfs showing this much more than the capture can account for: the file system reports its bytes late. */
#define LATE_SLACK (1024 * 1024)

static const char *const strategy_names[] = {
	[STRATEGY_SPLICE] = "splice",
	[STRATEGY_READWRITE] = "readwrite",
	[STRATEGY_NAIVE_SPLICE] = "naive-splice",
};

static const char *const prealloc_names[] = {
	[PREALLOC_KEEP_SIZE] = "keep-size",
	[PREALLOC_EXTEND] = "extend",
	[PREALLOC_FTRUNCATE] = "ftruncate",
	[PREALLOC_NONE] = "none",
};

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
	bool regular;             /* the output is a regular file: there is a size to trim and data to sync */
	bool no_fallocate;        /* the file system said EOPNOTSUPP once; ftruncate from then on */
	bool sparse;              /* zero pages become holes (o->sparse, and the output is a regular file) */
	bool compress;            /* the output is a zstd frame (o->compress) */
	struct compressor z;
	bool in_regular;          /* the input is a file (the raw core being compressed): dropped from the cache as read */
	uint64_t in_off;          /* bytes read from the input */
	bool reserve_runs;        /* a sparse copy: fallocate each run of data before writing it (write_run) */
	bool ext4;                /* the output is on ext4 (or ext2/3): see reserve_run() */
	bool have_baseline;       /* baseline holds the free space when the capture began (+ what it holds) */
	uint64_t baseline;
	uint64_t raw_avail;       /* what statfs said at the last check */
	const struct engine_hooks *hooks;  /* o->hooks until one of them fails */
};

DEFINE_STRING_TABLE_LOOKUP(strategy, enum strategy, strategy_names, _STRATEGY_MAX)
DEFINE_STRING_TABLE_LOOKUP(prealloc, enum prealloc, prealloc_names, _PREALLOC_MAX)

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
		.lock_fd = -1,
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

/* Whether the n bytes at p (8-byte aligned) are all zero: the first word, then the rest against itself shifted. */
static bool all_zero(const char *p, size_t n)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w == 0 && memcmp(p, p + sizeof(w), n - sizeof(w)) == 0;
}

/* Leaves a hole of n bytes at the file position: the position moves on, nothing is written or allocated. */
static int skip_hole(struct copy *c, size_t n)
{
	c->st->holes += n;
	return lseek(c->out, (off_t)n, SEEK_CUR) < 0 ? -errno : 0;
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
 * What ext4 may take past the end of what is written without a reservation (the run next to the chunk under
 * writeback, a compressed copy): mballoc normalizes a request for a growing file up to 8 MiB of preallocation,
 * given back only when the file is truncated or closed. 786 KiB under KeepFree were measured without this.
 */
#define EXT4_SLACK (8ULL << 20)

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

	return c->reserve_runs && !(c->ext4 && next_to_writeback);
}

/* Writes one run of data at pos, its blocks reserved first where reserve_run() says. 0 or -errno. */
static int write_run(struct copy *c, off_t pos, const char *buf, size_t n)
{
	int r = reserve_run(c, pos) ? reserve_blocks(c, FALLOC_FL_KEEP_SIZE, (uint64_t)pos, n) : 0;

	return r < 0 ? r : io_write_full(c->out, buf, n);
}

/*
 * The next run of buf from start: pages of one kind (a piece up to the file's next page boundary first, as only a
 * whole page may be a hole), then as many of the same kind as follow. Its end; *zero says its kind.
 */
static size_t next_run(off_t pos, const char *buf, size_t start, size_t n, bool *zero)
{
	size_t i = start + PAGE_BYTES - (size_t)((uint64_t)(pos + (off_t)start) % PAGE_BYTES);

	if (i > n)
		i = n;
	*zero = i - start == PAGE_BYTES && all_zero(buf + start, PAGE_BYTES);
	while (i + PAGE_BYTES <= n && all_zero(buf + i, PAGE_BYTES) == *zero)
		i += PAGE_BYTES;
	if (!*zero && i < n && n - i < PAGE_BYTES)
		i = n;
	return i;
}

/*
 * Writes n bytes of buf at the file position, leaving runs of zero pages (aligned in the file) of at least
 * o->min_hole bytes as holes; shorter ones go out with the data around them. Runs of data go out in one write
 * each. 0 or -errno.
 */
static int write_sparse(struct copy *c, const char *buf, size_t n)
{
	off_t pos = lseek(c->out, 0, SEEK_CUR);   /* where buf starts in the file: pages are aligned there */
	size_t i = 0, data = SIZE_MAX;            /* where the data not yet written starts */
	int r = 0;

	if (pos < 0)
		return -errno;
	while (i < n && r == 0) {
		size_t start = i;
		bool zero;

		i = next_run(pos, buf, start, n, &zero);
		if (!zero || i - start < c->o->min_hole) {
			if (data == SIZE_MAX)
				data = start;
			continue;
		}
		if (data != SIZE_MAX) {
			r = write_run(c, pos + (off_t)data, buf + data, start - data);
			c->st->out_calls++;
			data = SIZE_MAX;
		}
		if (r == 0)
			r = skip_hole(c, i - start);
	}
	if (r == 0 && data != SIZE_MAX) {
		r = write_run(c, pos + (off_t)data, buf + data, n - data);
		c->st->out_calls++;
	}
	return r;
}

static int write_dense(void *ctx, const char *buf, size_t n)
{
	struct copy *c = ctx;

	c->st->out_calls++;
	return io_write_full(c->out, buf, n);
}

/* Writes n bytes of buf to the output at its position: compressed, sparse, or as they are. 0 or -errno. */
static int write_out(struct copy *c, const char *buf, size_t n)
{
	if (c->compress)
		return compressor_feed(&c->z, buf, n, false, write_dense, c);
	if (c->sparse)
		return write_sparse(c, buf, n);
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

/* Copies up to len bytes from fd to the output through the buffer: bytes copied, or -errno. */
static ssize_t rw_copy(struct copy *c, int fd, uint64_t len)
{
	uint64_t done = 0;
	int r = ensure_buffer(c);

	while (r == 0 && done < len && !c->eof) {
		size_t n = len - done < c->o->buffer ? (size_t)(len - done) : c->o->buffer;
		ssize_t got = io_read_full(fd, c->buf, n, fd == c->in ? &c->st->in_calls : NULL);

		if (got < 0)
			return got;
		input_read(c, fd, got);
		/* io_read_full() comes back short only at the end of its input. */
		if ((size_t)got < n && fd == c->in)
			c->eof = true;
		if (got == 0)
			break;
		r = write_out(c, c->buf, (size_t)got);
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

/*
 * Moves the first bytes of the stream through the caller's head buffer on their way to the file, whatever the
 * strategy: they are read once, and the caller learns what the core's notes say without reading the file back.
 */
static ssize_t move_head(struct copy *c, size_t want)
{
	size_t n = want < c->o->head_len ? want : c->o->head_len;
	ssize_t got = io_read_full(c->in, c->o->head, n, &c->st->in_calls);
	int r;

	if (got < 0)
		return got;
	if ((size_t)got < n)
		c->eof = true;
	c->st->head_bytes = (size_t)got;
	r = write_out(c, c->o->head, (size_t)got);
	return r < 0 ? r : got;
}

/* Moves up to want bytes: the head first, then the current strategy. Bytes written, or -errno. */
static ssize_t move_chunk(struct copy *c, size_t want)
{
	ssize_t r, h = 0;

	if (c->off == 0 && c->o->head && c->o->head_len > 0) {
		h = move_head(c, want);
		if (h < 0 || c->eof || (size_t)h == want)
			return h;
		want -= (size_t)h;
	}
	r = move_strategy(c, want);
	return r < 0 ? (h > 0 ? h : r) : r + h;
}

/* Takes a hook's result: after its first error the hooks are off for the rest of the copy. */
static void hook_result(struct copy *c, int r)
{
	if (r >= 0)
		return;
	if (c->st->hook_error == 0)
		c->st->hook_error = -r;
	c->hooks = NULL;
}

/* What statfs says an unprivileged writer may still use. */
static uint64_t avail_bytes(const struct statfs *sfs)
{
	return (uint64_t)sfs->f_bavail * (uint64_t)sfs->f_frsize;
}

/* What this capture holds on disk: written less its holes, and what it holds elsewhere (the raw core). */
static uint64_t held(const struct copy *c)
{
	return c->off - c->st->holes + c->o->held_base;
}

/*
 * The free space statfs reports, made trustworthy: never more than was free when the capture began less what it
 * has put on disk since (space_trusted_avail). A file system seen to report late is remembered (late_statfs).
 */
static uint64_t trusted_avail(struct copy *c, const struct statfs *sfs)
{
	uint64_t trusted;

	c->raw_avail = avail_bytes(sfs);
	if (!c->have_baseline) {
		/*
		 * A copy that continues a capture (its compression) starts from what the first copy trusted: on a file
		 * system that reports late, statfs does not show yet the raw core that copy just wrote.
		 */
		c->baseline = c->o->baseline ? c->o->baseline : c->raw_avail + held(c);
		c->have_baseline = true;
		c->st->late_statfs = (unsigned long)sfs->f_type == BTRFS_MAGIC;
	}
	trusted = space_trusted_avail(c->raw_avail, c->baseline, held(c));
	if (c->raw_avail > trusted + LATE_SLACK)
		c->st->late_statfs = true;
	if (c->raw_avail < c->st->min_avail)
		c->st->min_avail = c->raw_avail;
	return trusted;
}

/* Reads what the policy needs: the file system's numbers and the bytes other cores use. */
static int read_space(struct copy *c, struct space_in *in)
{
	const struct engine_opts *o = c->o;
	struct statfs sfs;
	uint64_t used = 0, pending = 0;

	if (c->hooks)
		hook_result(c, c->hooks->used(c->hooks->ctx, &used, &pending));
	*in = (struct space_in) {
		/* MaxCoreSize and RLIMIT_CORE count the core's bytes, compressed or not. */
		.avail = UINT64_MAX, .total = UINT64_MAX, .block = PAGE_BYTES, .written = c->st->input,
		.held = held(c), .used = used, .pending = pending,
		.max_core = o->max_core, .rlimit = o->rlimit, .keep_free = o->keep_free,
		.max_use = c->hooks ? o->max_use : (struct size_spec) { UINT64_MAX, false, UINT64_MAX },
	};
	if (o->check_space) {
		if (fstatfs(c->out, &sfs) < 0)
			return -errno;
		in->avail = trusted_avail(c, &sfs);
		in->total = (uint64_t)sfs.f_blocks * (uint64_t)sfs.f_frsize;
		in->block = (uint64_t)sfs.f_frsize;
		in->slack = c->ext4 ? EXT4_SLACK : 0;
		c->st->reserve = space_resolve(&o->keep_free, in->total);
	}
	return 0;
}

/*
 * After a vacuum freed bytes: makes the file system show them, and starts a new baseline from what it shows. A
 * file system that reports unlinks late (btrfs until its transaction commits, xfs until its background inode work
 * runs) is synced first, or the room just made would stay invisible and the core would not get it.
 */
static int show_freed(struct copy *c, uint64_t avail_before, uint64_t freed)
{
	struct statfs sfs;
	struct timespec t0, t1;

	if (fstatfs(c->out, &sfs) < 0)
		return -errno;
	if (avail_bytes(&sfs) < avail_before + freed) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (syncfs(c->out) < 0 || fstatfs(c->out, &sfs) < 0)
			return -errno;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		c->st->syncs++;
		c->st->sync_ns += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	}
	/* Synced or not late: what statfs shows now includes this capture's own bytes. */
	c->baseline = avail_bytes(&sfs) + held(c);
	return 0;
}

/*
 * Asks the hooks to delete old cores for need bytes, and, when free space (not MaxUse, which counts cores in the
 * ledger) is what is short, makes the room show. Whether any was made, or -errno.
 */
static int make_room(struct copy *c, uint64_t need, enum limit which)
{
	uint64_t freed = 0;
	int r;

	if (!c->hooks)
		return 0;
	hook_result(c, c->hooks->make_room(c->hooks->ctx, need, &freed));
	if (freed == 0)
		return 0;
	/* raw_avail is from the check just made (read_space), before anything was removed. */
	r = which == LIMIT_KEEP_FREE ? show_freed(c, c->raw_avail, freed) : 0;
	return r < 0 ? r : 1;
}

/*
 * Decides how much of the next chunk may be written. When free space or the quota is short, old cores are deleted
 * first: the new crash matters more than the oldest one. *which says what bound the answer.
 */
static int plan_chunk(struct copy *c, size_t *want, enum limit *which)
{
	struct space_in in;
	uint64_t budget;
	int r = read_space(c, &in);

	if (r < 0)
		return r;
	budget = space_budget(&in, c->o->chunk, which);
	if (budget < c->o->chunk && (*which == LIMIT_KEEP_FREE || *which == LIMIT_MAX_USE))
		r = make_room(c, c->o->chunk - budget, *which);
	if (r < 0)
		return r;
	if (r > 0) {
		r = read_space(c, &in);
		if (r < 0)
			return r;
		budget = space_budget(&in, c->o->chunk, which);
	}
	/*
	 * What this capture may hold by the chunk's end, should every byte of it be data, and what of it the others
	 * cannot see in statfs: a sparse or compressing capture's chunk (it preallocates only as it writes), or
	 * everything it holds on a file system that reports late.
	 */
	if (c->hooks)
		hook_result(c, c->hooks->reserve(c->hooks->ctx, held(c) + budget,
						 c->st->late_statfs ? held(c) + budget :
						 c->sparse || c->compress ? budget : 0));
	*want = (size_t)budget;
	return 0;
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

	return io_read_full(c->in, &b, 1, NULL) == 1;
}

static int copy_setup(struct copy *c)
{
	struct statfs sfs;
	struct stat st;
	int r;

	c->regular = fstat(c->out, &st) == 0 && S_ISREG(st.st_mode);
	c->in_regular = fstat(c->in, &st) == 0 && S_ISREG(st.st_mode);
	/* A compressed file is written by read/write, dense: zstd leaves no page of zeros. */
	if (c->o->compress) {
		r = compressor_init(&c->z, c->o->compress);
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
	c->ext4 = (unsigned long)sfs.f_type == EXT4_MAGIC;
	/*
	 * Not on btrfs: it may write a run into new blocks rather than the ones reserved for it (copy on write), and
	 * statfs then counts both until its transaction commits: 36 MB under KeepFree for a moment on a 1 GiB btrfs,
	 * measured, where writing without a reservation stayed above it (its late statfs is handled by the baseline).
	 */
	c->reserve_runs = c->sparse && (c->o->prealloc == PREALLOC_KEEP_SIZE || c->o->prealloc == PREALLOC_EXTEND) &&
			  (unsigned long)sfs.f_type != BTRFS_MAGIC;
	/* Best effort: the kernel's core pipe holds 64 KiB; a larger one lets it run ahead while a chunk is flushed. */
	if (c->o->in_pipe > 0)
		(void) io_set_pipe_size(c->in, c->o->in_pipe, PIPE_FLOOR);
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
	c->st->truncated = input_has_more(c);
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

	if (c->o->lock_fd >= 0 && flock(c->o->lock_fd, LOCK_EX) < 0)
		return -errno;
	r = plan_chunk(c, want, which);
	if (r == 0 && *want > 0) {
		r = prealloc(c, *want);
		if (r < 0) {
			c->st->space_error = -r;
			*which = LIMIT_KEEP_FREE;
			*want = 0;
			r = 0;
		}
	}
	if (c->o->lock_fd >= 0)
		(void) flock(c->o->lock_fd, LOCK_UN);
	return r;
}

/*
 * Whether a capture into out may store anything now, by the same checks as its first chunk (old cores removed to
 * make room included): 1 when at least a page may be written, 0 when not (st->limit says what bounds it), or
 * -errno.
 * Socket mode asks this before the kernel dumps a byte.
 */
int engine_room(int out, const struct engine_opts *o, struct engine_stats *st)
{
	struct copy c = { .in = -1, .out = out, .o = o, .st = st, .strategy = o->strategy, .stage = { -1, -1 },
			  .hooks = o->hooks };
	size_t want = 0;
	int r;

	*st = (struct engine_stats) { .min_avail = UINT64_MAX };
	if (o->lock_fd >= 0 && flock(o->lock_fd, LOCK_EX) < 0)
		return -errno;
	r = plan_chunk(&c, &want, &st->limit);
	if (o->lock_fd >= 0)
		(void) flock(o->lock_fd, LOCK_UN);
	if (r < 0)
		return r;
	return want >= PAGE_BYTES;
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
	c->st->chunks++;
	c->st->input += (uint64_t)n;
	c->pend_off = c->off;
	/* Compressed, the file grows by what zstd has emitted so far, not by what was read. */
	c->off = c->compress ? c->z.written : c->off + (uint64_t)n;
	c->pend_len = c->off - c->pend_off;
	/* A move of nothing happens only at the end of the input; never spin on it. */
	return c->eof || n == 0 ? 0 : 1;
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
	struct copy c = { .in = in, .out = out, .o = o, .st = st, .strategy = o->strategy, .stage = { -1, -1 },
			  .hooks = o->hooks };
	int r, f;

	*st = (struct engine_stats) { .min_avail = UINT64_MAX };
	r = copy_setup(&c);
	while (r == 0 && (r = copy_step(&c)) > 0)
		r = 0;
	/* A complete input closes the frame; a cut one leaves it open, which no reader takes for whole. */
	if (r == 0 && c.compress && !st->truncated) {
		r = compressor_feed(&c.z, NULL, 0, true, write_dense, &c);
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
	st->baseline = c.have_baseline ? c.baseline : 0;
	copy_teardown(&c);
	return r < 0 ? r : f;
}
