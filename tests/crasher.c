/*
 * crasher.c: holds SIZE MiB of the known pattern, then dies of SIGSEGV in crash_here(). Test and benchmark helper:
 * with -t it prints the CLOCK_REALTIME nanosecond at which it crashes, so that crash-to-stored can be timed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "pattern.h"

static volatile int *volatile nowhere;

/* gdb must find this frame on top of the stack of the core. */
__attribute__((noinline)) static void crash_here(uint64_t *keep)
{
	*nowhere = (int)keep[0];
}

int main(int argc, char **argv)
{
	int timed = argc > 1 && strcmp(argv[1], "-t") == 0;
	size_t mib = argc > 1 + timed ? strtoul(argv[1 + timed], NULL, 10) : 64;
	size_t words = mib << 17;
	uint64_t *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec ts;

	if (p == MAP_FAILED)
		return perror("mmap"), 1;
	for (size_t i = 0; i < words; i++)
		p[i] = pattern_word(i);
	if (timed) {
		clock_gettime(CLOCK_REALTIME, &ts);
		printf("%lld%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	}
	fflush(stdout);
	crash_here(p);
	return 0;
}
