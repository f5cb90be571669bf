/*
 * workers.c: a process as a debugger finds a real one: threads each waiting in a function of its own, two frames
 * deep (alpha, beta, kappa, delta, then -n more in spare()), SIZE MiB of the known pattern allocated after them,
 * so that its memory lies below their stacks and the kernel dumps it first, then the main thread dies of SIGSEGV
 * in crash_main(). A dump cut anywhere in that memory loses every stack unless they were had another way
 * (EarlyStacks=). With -s KIB, delta's frame holds KIB KiB of its own (a stack larger than MinimalStackSizeMax=).
 * Once every thread waits in pause(), it writes "ready" to stdout (and crashes only when stdin closes, with -w).
 * usage: workers [-n SPARE] [-s KIB] [-w] [MIB]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "idle.h"
#include "pattern.h"

static volatile int *volatile nowhere;
static pthread_barrier_t all_waiting;
static size_t big_kib;

/* Each thread ends in pause(), under two frames of its own. noinline, and a use of the frame after the call, keep
 * the frames as written. */
#define WAITER(name)                                                   \
	__attribute__((noinline)) static void name##_deep(volatile char *p) \
	{                                                                  \
		pthread_barrier_wait(&all_waiting);                        \
		idle_passed();                                             \
		for (;;)                                                   \
			pause();                                           \
		p[0]++;                                                    \
	}                                                                  \
	__attribute__((noinline)) static void *name(void *arg)            \
	{                                                                  \
		volatile char frame[64];                                   \
		frame[0] = (char)(long)arg;                                \
		name##_deep(frame);                                        \
		return (void *)(long)frame[0];                             \
	}

WAITER(alpha)
WAITER(beta)
WAITER(kappa)
WAITER(spare)

/* delta's frame: -s KiB of its own, touched, so that its stack is as large as asked. */
__attribute__((noinline)) static void delta_deep(volatile char *p)
{
	pthread_barrier_wait(&all_waiting);
	idle_passed();
	for (;;)
		pause();
	p[0]++;
}

__attribute__((noinline)) static void *delta(void *arg)
{
	size_t n = big_kib * 1024 + 64;
	volatile char *frame = __builtin_alloca(n);

	for (size_t i = 0; i < n; i += 4096)
		frame[i] = (char)(long)arg;
	delta_deep(frame);
	return (void *)(long)frame[0];
}

__attribute__((noinline)) static void crash_main(uint64_t *keep)
{
	*nowhere = (int)keep[0];
}

static void start(void *(*fn)(void *), size_t stack)
{
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, stack);
	if (pthread_create(&t, &a, fn, NULL) != 0) {
		perror("pthread_create");
		exit(2);
	}
	pthread_attr_destroy(&a);
}

int main(int argc, char **argv)
{
	unsigned n_spare = 0;
	int wait_stdin = 0, c;
	size_t mib = 64;
	uint64_t *mem;
	char buf[1];

	while ((c = getopt(argc, argv, "n:s:w")) != -1) {
		if (c == 'n')
			n_spare = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 's')
			big_kib = strtoul(optarg, NULL, 10);
		else if (c == 'w')
			wait_stdin = 1;
		else
			return 2;
	}
	if (optind < argc)
		mib = strtoull(argv[optind], NULL, 10);
	pthread_barrier_init(&all_waiting, NULL, 5 + n_spare);
	start(alpha, 256 << 10);
	start(beta, 256 << 10);
	start(kappa, 256 << 10);
	start(delta, big_kib * 1024 + (1 << 20));
	for (unsigned i = 0; i < n_spare; i++)
		start(spare, 64 << 10);
	pthread_barrier_wait(&all_waiting);
	/* After the threads: the memory lies below their stacks, and is dumped before them. */
	mem = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	/* Huge pages, as crasher.c says why: every page of it is written. */
	(void) madvise(mem, mib << 20, MADV_HUGEPAGE);
	for (uint64_t w = 0; w < (mib << 20) / 8; w++)
		mem[w] = pattern_word(w);
	idle_all_paused(4 + n_spare);
	printf("ready\n");
	fflush(stdout);
	if (wait_stdin)
		while (read(0, buf, 1) > 0)
			;
	crash_main(mem);
	return 0;
}
