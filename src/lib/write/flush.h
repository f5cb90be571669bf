/* flush.h: the disk's write cache emptied behind the copy, by a thread of its own (flush.c). */
#ifndef CORESINK_FLUSH_H
#define CORESINK_FLUSH_H

#include <pthread.h>
#include <stdbool.h>

struct flusher {
	int dirfd;                /* the cores directory, where the thread makes the file it flushes through; -1: no
				     flushes (none asked for, or the thread could not start) */
	bool asked;               /* a flush is wanted: a chunk's writeback ended since the last began */
	bool stop, running;
	unsigned flushes;         /* flushes done; the thread stops at the first that fails */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
};

void flusher_init(struct flusher *f, int dirfd);
void flusher_ask(struct flusher *f);
void flusher_stop(struct flusher *f);

#endif
