/*
 * crasher.c: holds SIZE MiB of the known pattern, then dies of SIGSEGV in crash_here(). Test and benchmark helper:
 * with -t it prints the CLOCK_REALTIME nanosecond at which it crashes, so that crash-to-stored can be timed; with
 * -u UID it changes credentials first, so that it is no longer dumpable by its owner (it dumps only with
 * fs.suid_dumpable=2, as %d=2); -c NAME sets its comm; -z PCT leaves PCT% of the pattern's pages zero (never
 * touched, as most of a real process's memory); -T N starts N idle threads first, each with its own stack.
 * usage: crasher [-t] [-u UID] [-c NAME] [-z PCT] [-T N] [MIB]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <time.h>

#include "pattern.h"

static volatile int *volatile nowhere;

/* gdb must find this frame on top of the stack of the core. */
__attribute__((noinline)) static void crash_here(uint64_t *keep)
{
	*nowhere = (int)keep[0];
}

static void *idle(void *arg)
{
	(void) arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int timed = 0, i = 1;
	unsigned zero = 0, threads = 0;
	uid_t uid = (uid_t)-1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		timed |= strcmp(argv[i], "-t") == 0;
		if (strcmp(argv[i], "-u") == 0 && i + 1 < argc)
			uid = (uid_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			prctl(PR_SET_NAME, argv[++i], 0, 0, 0);
		else if (strcmp(argv[i], "-z") == 0 && i + 1 < argc)
			zero = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-T") == 0 && i + 1 < argc)
			threads = (unsigned)strtoul(argv[++i], NULL, 10);
	}
	for (unsigned t = 0; t < threads; t++) {
		pthread_t th;

		if (pthread_create(&th, NULL, idle, NULL) != 0)
			return perror("pthread_create"), 1;
	}
	size_t mib = i < argc ? strtoul(argv[i], NULL, 10) : 64;
	size_t words = mib << 17;
	uint64_t *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec ts;

	if (p == MAP_FAILED)
		return perror("mmap"), 1;
	for (size_t w = 0; w < words; w++)
		if (!pattern_zero_page(w / 512, zero))
			p[w] = pattern_word(w);
	if (uid != (uid_t)-1 && (setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0))
		return perror("setresuid"), 1;
	if (timed) {
		clock_gettime(CLOCK_REALTIME, &ts);
		printf("%lld%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	}
	fflush(stdout);
	crash_here(p);
	return 0;
}
