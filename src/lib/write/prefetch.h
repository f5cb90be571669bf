/* prefetch.h: the core read ahead of the engine by a thread of its own, into a ring of buffers taken in place. */
#ifndef CORESINK_PREFETCH_H
#define CORESINK_PREFETCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where the ring begins: a huge page's boundary (x86-64's 2 MiB), so that the kernel can map it in huge pages. */
#define PREFETCH_RING_ALIGN (2u << 20)

struct prefetch_slot {
	size_t len;               /* bytes read into the buffer */
	bool eof;                 /* the input ended after them */
	int err;                  /* or failed after them (-errno) */
};

struct prefetch {
	int fd, flags;            /* the input, and its file status flags to give back */
	int stopfd;               /* an eventfd: the consumer stops the reader while it waits for input */
	size_t size;              /* bytes per buffer */
	unsigned n;               /* buffers in the ring */
	char *mem;
	struct prefetch_slot *slots;
	unsigned head, filled;    /* the consumer's buffer; how many the reader has filled */
	size_t off;               /* what of the head buffer the consumer has released */
	bool stop, finished, running;
	int silence_ms;           /* how long the input may say nothing before it is taken as ended; -1 for ever */
	bool silent;              /* it ended so (set by the reader before its last buffer) */
	unsigned long calls;      /* read(2) calls that returned data: the reader's own */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
};

int prefetch_start(struct prefetch *p, int fd, size_t size, unsigned n, int silence_ms);
ssize_t prefetch_take(struct prefetch *p, const char **data, size_t n);
void prefetch_release(struct prefetch *p, size_t n);
unsigned prefetch_filled(struct prefetch *p);
ssize_t prefetch_read(struct prefetch *p, void *buf, size_t n);
void prefetch_stop(struct prefetch *p);

#endif
