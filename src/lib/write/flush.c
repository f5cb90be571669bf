/*
 * flush.c: the disk's write cache emptied behind the copy, by a thread of its own. A disk that takes writes into a
 * volatile cache (an SSD's, a virtual disk's over its host's page cache) answers the final fdatasync only once all
 * it holds of the core is on stable storage: here 0.48-0.62 s of a 1 GiB crash's release of 1.2-1.7 s, all of it
 * after the last byte came (docs/benchmark.md, 2026-12-01). So once a chunk's writeback has ended (engine.c,
 * settle()), the thread asks the disk to empty its cache, at most one flush in flight and one asked for behind it:
 * the disk writes out while the kernel still dumps, and the final sync finds little left (15 ms instead of 560).
 * The flush is the fdatasync of an empty unnamed file (O_TMPFILE) in the cores directory, made by the thread at its
 * first flush: a file with nothing to write, for which ext4 and xfs send the disk a flush alone (counted on loop
 * devices: 11 flushes for its creation and 10 fdatasyncs, no sector written), so the core's writeback stays the
 * engine's, in its order (copy_step() explains why that order matters). Not the directory's own fdatasync: a
 * journalled ext4 and xfs send nothing for a clean directory. Best effort: btrfs sends no flush for a clean file,
 * a file system without O_TMPFILE gets none, and nothing waits for the thread but flusher_stop().
 */
#include <fcntl.h>
#include <unistd.h>

#include "base.h"
#include "flush.h"

static void *flusher(void *arg)
{
	struct flusher *f = arg;
	int flush_file = -1, r;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (!f->asked && !f->stop)
			pthread_cond_wait(&f->cond, &f->lock);
		if (f->stop)
			break;
		f->asked = false;
		pthread_mutex_unlock(&f->lock);
		if (flush_file < 0)
			flush_file = openat(f->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		r = flush_file < 0 ? -errno : io_fdatasync(flush_file);
		pthread_mutex_lock(&f->lock);
		if (r < 0)
			break;
		f->flushes++;
	}
	pthread_mutex_unlock(&f->lock);
	fd_close(&flush_file);
	return NULL;
}

/*
 * The flusher of the cores directory dirfd (the caller's; -1 for none), its thread not yet started: most cores end
 * before their first flush.
 */
void flusher_init(struct flusher *f, int dirfd)
{
	*f = (struct flusher) { .dirfd = dirfd };
}

/* The thread, started at the first flush asked for. 0 or -errno (the copy then goes on without it). */
static int start(struct flusher *f)
{
	int r;

	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	r = -pthread_create(&f->thread, NULL, flusher, f);
	if (r == 0) {
		f->running = true;
		return 0;
	}
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	f->dirfd = -1;
	return r;
}

/* A chunk's writeback has ended: one flush more, after the one in flight if there is one. */
void flusher_ask(struct flusher *f)
{
	if (f->dirfd < 0 || (!f->running && start(f) < 0))
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
