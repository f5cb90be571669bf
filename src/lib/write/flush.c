/*
 * flush.c: the disk's write cache emptied behind the copy, by a thread of its own. A disk that takes writes into a
 * volatile cache (an SSD's, a virtual disk's over its host's page cache) answers the final fdatasync only once all
 * it holds of the core is on stable storage: here 0.48-0.62 s of a 1 GiB crash's release of 1.2-1.7 s, all of it
 * after the last byte came (docs/benchmark.md, 2026-12-01). So once a chunk's writeback has ended (engine.c,
 * settle()), the thread asks the disk to empty its cache, at most one flush in flight and one asked for behind it:
 * the disk writes out while the kernel still dumps, and the final sync finds little left (15 ms instead of 560).
 * The flush is the fdatasync of a file on the same file system that has nothing of its own to write (the cores
 * directory): ext4 and xfs then send the disk a flush alone, writing no page of the core, so the writeback stays
 * the engine's, in its order (copy_step() explains why that order matters). Best effort: a file system that sends
 * no flush for a clean file (btrfs) gains nothing, and nothing waits for the thread but flusher_stop().
 */
#include <errno.h>

#include "base.h"
#include "flush.h"

static void *flusher(void *arg)
{
	struct flusher *f = arg;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (!f->asked && !f->stop)
			pthread_cond_wait(&f->cond, &f->lock);
		if (f->stop)
			break;
		f->asked = false;
		pthread_mutex_unlock(&f->lock);
		(void) io_fdatasync(f->fd);
		pthread_mutex_lock(&f->lock);
		f->flushes++;
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

/* Starts the thread; fd stays the caller's. 0 or -errno (no thread: the copy goes on without it). */
int flusher_start(struct flusher *f, int fd)
{
	int r;

	*f = (struct flusher) { .fd = fd };
	if (fd < 0)
		return -EBADF;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	r = -pthread_create(&f->thread, NULL, flusher, f);
	if (r == 0) {
		f->running = true;
		return 0;
	}
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	return r;
}

/* A chunk's writeback has ended: one flush more, after the one in flight if there is one. */
void flusher_ask(struct flusher *f)
{
	if (!f->running)
		return;
	pthread_mutex_lock(&f->lock);
	f->asked = true;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* Before the final sync: the flush in flight ended (the sync would wait for it anyway), none asked for begins. */
void flusher_stop(struct flusher *f)
{
	if (!f->running)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	(void) pthread_join(f->thread, NULL);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	f->running = false;
}
