/* flush.h: the disk's write cache emptied behind the copy, by a thread of its own (flush.c). */
#ifndef CORESINK_FLUSH_H
#define CORESINK_FLUSH_H

#include <pthread.h>
#include <stdbool.h>

struct flusher {
	int fd;                   /* a file on the core's file system with nothing of its own to write: the directory */
	bool asked;               /* a flush is wanted: a chunk's writeback ended since the last began */
	bool stop, running;
	unsigned flushes;         /* flushes done */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
};

int flusher_start(struct flusher *f, int fd);
void flusher_ask(struct flusher *f);
void flusher_stop(struct flusher *f);

#endif
