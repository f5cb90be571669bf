/*
 * prefetch.c: reads the core ahead of the engine, in a thread of its own, into a ring of a few buffers. The kernel
 * holds little of a core in flight (the pipe's 1 MiB, the coredump socket's send buffer of 208 KiB), and stops
 * dumping when that is full: while the engine waits for the disk (the writeback of the chunk before), the reader
 * keeps taking the core, up to the ring's size. The engine writes from the ring's buffers in place: no byte is
 * copied twice. Memory: the ring, allocated once.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base.h"
#include "prefetch.h"

/*
 * Waits for the input, or for the consumer to stop the reader, at most silence_ms. 0, 1 when stopped, -ETIME when
 * the input said nothing for that long, or -errno.
 */
static int wait_input(struct prefetch *p)
{
	struct pollfd fds[2] = { { .fd = p->fd, .events = POLLIN }, { .fd = p->stopfd, .events = POLLIN } };
	int r = poll(fds, 2, p->silence_ms);

	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	return fds[1].revents ? 1 : r == 0 ? -ETIME : 0;
}

/* Fills one buffer: until it is full, the input ends, or an error. 1 when stopped, else 0. */
static int fill(struct prefetch *p, struct prefetch_slot *s, char *buf)
{
	*s = (struct prefetch_slot) { 0 };
	while (s->len < p->size && !s->eof && s->err == 0) {
		ssize_t n = read(p->fd, buf + s->len, p->size - s->len);
		int r;

		if (n > 0) {
			s->len += (size_t)n;
			p->calls++;
		} else if (n == 0) {
			s->eof = true;
		} else if (errno == EAGAIN) {
			r = wait_input(p);
			if (r > 0)
				return 1;
			/* Silent past its bound: the end of the input, said (prefetch's silent). */
			if (r == -ETIME)
				s->eof = p->silent = true;
			else
				s->err = r;
		} else if (errno != EINTR) {
			s->err = -errno;
		}
	}
	return 0;
}

static void *reader(void *arg)
{
	struct prefetch *p = arg;

	for (;;) {
		struct prefetch_slot s;
		unsigned at;

		bool stop;

		pthread_mutex_lock(&p->lock);
		while (p->filled == p->n && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		at = (p->head + p->filled) % p->n;
		stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop || fill(p, &s, p->mem + (size_t)at * p->size) > 0)
			break;
		pthread_mutex_lock(&p->lock);
		p->slots[at] = s;
		p->filled++;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->lock);
		if (s.eof || s.err)
			break;
	}
	return NULL;
}

/*
 * The ring, in huge pages where the kernel has them (transparent huge pages, madvised). The reader's first pass
 * faults in each page of it, inside read(), while the kernel waits to dump more: on this virtualised host a fault is
 * dear, and an 8 MiB ring in 4 KiB pages took about 50 ms of a socket-mode crash (2048 faults), in 2 MiB pages 4
 * (docs/benchmark.md, 2026-12-01, seventh session). Where the kernel has none to give (THP off or not built, memory
 * too fragmented), the pages are small, as without the advice. NULL where there is no memory.
 */
static char *ring_alloc(size_t bytes)
{
	void *mem;

	if (posix_memalign(&mem, PREFETCH_RING_ALIGN, bytes) != 0)
		return NULL;
	(void) madvise(mem, bytes, MADV_HUGEPAGE);
	return mem;
}

/*
 * Starts reading fd ahead, n buffers of size bytes; an input silent for silence_ms (0: no bound) is taken as
 * ended. 0 or -errno (then nothing was started).
 */
int prefetch_start(struct prefetch *p, int fd, size_t size, unsigned n, int silence_ms)
{
	int flags = fcntl(fd, F_GETFL), r;

	*p = (struct prefetch) { .fd = fd, .size = size, .n = n, .flags = flags, .stopfd = -1,
				 .silence_ms = silence_ms > 0 ? silence_ms : -1 };
	if (flags < 0 || n == 0)
		return flags < 0 ? -errno : -EINVAL;
	p->mem = ring_alloc(size * n);
	if (!p->mem)
		return -ENOMEM;
	p->slots = calloc(n, sizeof(*p->slots));
	p->stopfd = eventfd(0, EFD_CLOEXEC);
	if (!p->slots || p->stopfd < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		r = p->stopfd < 0 || p->slots ? -errno : -ENOMEM;
		goto fail;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	r = -pthread_create(&p->thread, NULL, reader, p);
	if (r == 0) {
		p->running = true;
		return 0;
	}
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	(void) fcntl(fd, F_SETFL, flags);
fail:
	fd_close(&p->stopfd);
	free(p->slots);
	free(p->mem);
	return r;
}

/*
 * Up to n bytes of the input, in place: *data points at them until prefetch_release(). Blocks until the reader has
 * some. Bytes (fewer than n is not the end), 0 at the end of the input, or -errno.
 */
ssize_t prefetch_take(struct prefetch *p, const char **data, size_t n)
{
	struct prefetch_slot *s;
	ssize_t r;

	pthread_mutex_lock(&p->lock);
	while (p->filled == 0 && !p->finished)
		pthread_cond_wait(&p->cond, &p->lock);
	s = &p->slots[p->head];
	if (p->filled == 0) {
		r = 0;
	} else if (p->off < s->len) {
		*data = p->mem + (size_t)p->head * p->size + p->off;
		r = (ssize_t)(s->len - p->off < n ? s->len - p->off : n);
	} else {
		/* An empty last buffer: the end, or the error (-errno), once every byte before it is taken. */
		r = s->err < 0 ? s->err : 0;
		p->finished = true;
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

/* Gives back n bytes taken: a buffer taken whole goes back to the reader. */
void prefetch_release(struct prefetch *p, size_t n)
{
	struct prefetch_slot *s;

	pthread_mutex_lock(&p->lock);
	s = &p->slots[p->head];
	p->off += n;
	if (p->off >= s->len && !s->eof && s->err == 0) {
		p->head = (p->head + 1) % p->n;
		p->filled--;
		p->off = 0;
		pthread_cond_signal(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
}

/* Reads up to n bytes into buf, as io_read_full(): fewer only at the end of the input. Bytes, or -errno. */
ssize_t prefetch_read(struct prefetch *p, void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		const char *data;
		ssize_t got = prefetch_take(p, &data, n - done);

		/* The error, not the bytes before it: a short count would read as the end, and the core as whole. */
		if (got < 0)
			return got;
		if (got == 0)
			break;
		memcpy((char *)buf + done, data, (size_t)got);
		prefetch_release(p, (size_t)got);
		done += (size_t)got;
	}
	return (ssize_t)done;
}

/* Stops the reader (what it read and nobody took is dropped), gives the input back as it was, frees the ring. */
void prefetch_stop(struct prefetch *p)
{
	const uint64_t one = 1;

	if (!p->running)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	(void) !write(p->stopfd, &one, sizeof(one));
	(void) pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	(void) fcntl(p->fd, F_SETFL, p->flags);
	(void) close(p->stopfd);
	free(p->slots);
	free(p->mem);
	p->running = false;
}

/* How many buffers the reader has filled that the consumer has not taken: a ring that stays full waits for it. */
unsigned prefetch_filled(struct prefetch *p)
{
	unsigned n;

	pthread_mutex_lock(&p->lock);
	n = p->filled;
	pthread_mutex_unlock(&p->lock);
	return n;
}
