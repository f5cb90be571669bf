/*
 * uring-handler.c: an experiment, not part of coresink. A pipe-mode core handler on io_uring (liburing), to put
 * beside coresink's read/write loop on real crashes (scripts/uring-bench.sh): receiving overlaps writing, which
 * coresink's one thread does in turns.
 *
 * One read of the pipe in flight (reads of one pipe must stay in order), up to NBUF buffers of 1 MiB behind it
 * whose runs of non-zero pages are written at their offsets, all in flight at once (zero pages are left as holes,
 * as coresink's sparse copy does). Every 16 MiB, as coresink: writeback of the chunk just written started, and the
 * chunk before it waited for and dropped from the page cache, both queued in the ring (sync_file_range linked to
 * fadvise), so the reads never wait for them. No fallocate: a sparse copy reserves nothing ahead.
 *
 * usage: uring-handler FILE [NBUF]   (the core on stdin; NBUF 1 to 32, default 8)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF (1 << 20)
#define PAGE 4096
#define CHUNK (16ULL << 20)
#define MAXBUF 32
#define MAXRUNS (BUF / PAGE / 2 + 1)   /* runs of data in a buffer, at most: every other page */

struct req {
	int buf;                 /* which buffer; -1 for writeback and fadvise, whose results are not used */
	unsigned long long off;  /* where in the file */
	unsigned pos, len;       /* where in the buffer, how much still to write */
};

static struct io_uring ring;
static char *bufs[MAXBUF];
static struct req reads[MAXBUF], runs[MAXBUF][MAXRUNS], hygiene = { .buf = -1 };
static int freelist[MAXBUF], nfree, pending[MAXBUF], out, inflight;

static struct io_uring_sqe *sqe(void)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&ring);

	if (!s) {
		io_uring_submit(&ring);
		s = io_uring_get_sqe(&ring);
	}
	inflight++;
	return s;
}

static void queue_read(void)
{
	int b = freelist[--nfree];
	struct io_uring_sqe *s = sqe();

	reads[b] = (struct req) { .buf = b };
	io_uring_prep_read(s, STDIN_FILENO, bufs[b], BUF, -1);
	io_uring_sqe_set_data(s, &reads[b]);
}

static void queue_write(struct req *r)
{
	struct io_uring_sqe *s = sqe();

	io_uring_prep_write(s, out, bufs[r->buf] + r->pos, r->len, r->off);
	io_uring_sqe_set_data(s, r);
}

static int zero_page(const char *p)
{
	static const char zeros[PAGE];

	return memcmp(p, zeros, PAGE) == 0;
}

/* Queues a write for each run of data in buffer b (n bytes read at off); a buffer of zeros is free at once. */
static void queue_runs(int b, unsigned long long off, unsigned n)
{
	unsigned i = 0, k = 0;

	while (i < n) {
		unsigned start;

		if (n - i >= PAGE && zero_page(bufs[b] + i)) {
			i += PAGE;
			continue;
		}
		for (start = i; i < n && !(n - i >= PAGE && zero_page(bufs[b] + i));)
			i += n - i < PAGE ? n - i : PAGE;
		runs[b][k] = (struct req) { .buf = b, .off = off + start, .pos = start, .len = i - start };
		queue_write(&runs[b][k++]);
	}
	pending[b] = (int)k;
	if (k == 0)
		freelist[nfree++] = b;
}

/* At a chunk boundary: writeback of the chunk that ends at end starts; the one before is waited for and dropped. */
static void chunk_done(unsigned long long end)
{
	struct io_uring_sqe *s;

	if (end >= 2 * CHUNK) {
		s = sqe();
		io_uring_prep_sync_file_range(s, out, CHUNK, end - 2 * CHUNK, SYNC_FILE_RANGE_WAIT_BEFORE |
					      SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
		s->flags |= IOSQE_IO_LINK;
		io_uring_sqe_set_data(s, &hygiene);
		s = sqe();
		io_uring_prep_fadvise(s, out, end - 2 * CHUNK, CHUNK, POSIX_FADV_DONTNEED);
		io_uring_sqe_set_data(s, &hygiene);
	}
	s = sqe();
	io_uring_prep_sync_file_range(s, out, CHUNK, end - CHUNK, SYNC_FILE_RANGE_WRITE);
	io_uring_sqe_set_data(s, &hygiene);
}

/* One completion. 1 while reading goes on, 0 at the end of the input, or -errno. */
static int complete(struct req *r, int res, unsigned long long *size, int *reading)
{
	if (r == &hygiene)
		return 1;
	if (r == &reads[r->buf]) {
		*reading = 0;
		if (res == -EINTR || res == -EAGAIN) {
			freelist[nfree++] = r->buf;
			return 1;
		}
		if (res <= 0) {
			freelist[nfree++] = r->buf;
			return res;
		}
		queue_runs(r->buf, *size, (unsigned)res);
		if ((*size + (unsigned)res) / CHUNK != *size / CHUNK)
			chunk_done((*size + (unsigned)res) / CHUNK * CHUNK);
		*size += (unsigned)res;
		return 1;
	}
	if (res <= 0)
		return res < 0 ? res : -EIO;
	if ((unsigned)res < r->len) {
		r->off += (unsigned)res;
		r->pos += (unsigned)res;
		r->len -= (unsigned)res;
		queue_write(r);
	} else if (--pending[r->buf] == 0) {
		freelist[nfree++] = r->buf;
	}
	return 1;
}

int main(int argc, char **argv)
{
	int nbuf = argc > 2 ? atoi(argv[2]) : 8, reading = 0, more = 1, r;
	unsigned long long size = 0;

	if (argc < 2 || nbuf < 1 || nbuf > MAXBUF) {
		fprintf(stderr, "usage: uring-handler FILE [NBUF]\n");
		return 100;
	}
	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0 || io_uring_queue_init(64, &ring, 0) < 0)
		return 111;
	for (int i = 0; i < nbuf; i++) {
		bufs[i] = aligned_alloc(PAGE, BUF);
		if (!bufs[i])
			return 111;
		freelist[nfree++] = i;
	}
	/* As coresink: the kernel's core pipe holds 64 KiB; 1 MiB lets it run ahead. */
	(void) fcntl(STDIN_FILENO, F_SETPIPE_SZ, BUF);
	while (more || inflight > 0) {
		struct io_uring_cqe *c;

		if (more && !reading && nfree > 0) {
			queue_read();
			reading = 1;
		}
		io_uring_submit(&ring);
		if (io_uring_wait_cqe(&ring, &c) < 0)
			return 111;
		r = complete(io_uring_cqe_get_data(c), c->res, &size, &reading);
		io_uring_cqe_seen(&ring, c);
		inflight--;
		if (r < 0) {
			fprintf(stderr, "uring-handler: %s\n", strerror(-r));
			return 111;
		}
		more &= r;
	}
	/* The size a file ending in holes would not have, then on disk and out of the cache. */
	if (ftruncate(out, (off_t)size) < 0 || fdatasync(out) < 0)
		return 111;
	(void) posix_fadvise(out, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}
