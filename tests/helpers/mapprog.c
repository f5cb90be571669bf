/*
 * mapprog: a program with a shared library of its own (maplib.c), for the stack trace made from the files a
 * process had mapped (t-mapped). usage: mapprog DELAY_MS [LIBRARY...]: loads each LIBRARY (a process with many
 * mapped files), creates the file $MAPPROG_READY names if it is set, sleeps DELAY_MS (its files may be replaced
 * meanwhile; where $MAPPROG_GO names a file, only until that file exists, DELAY_MS at most: the test's replacing is
 * done, however long a loaded machine took for it), prints the time (CLOCK_REALTIME, ns), then
 * dies of SIGSEGV in crash_here, called back by its library: main, level1, lib_a, lib_b, crash_here. Built twice
 * with another VARIANT, it is another build (other build-ids, other offsets).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef VARIANT
#define VARIANT 1
#endif

void lib_a(void (*cb)(void));

#if VARIANT != 1
/* Another build's code before the functions: their offsets move. */
__attribute__((noinline)) int padding(int x)
{
	return x * 3 + VARIANT;
}
#endif

__attribute__((noinline)) void crash_here(void)
{
	/* cppcheck-suppress nullPointer ; the crash this program exists for */
	*(volatile int *)0 = VARIANT;
}

__attribute__((noinline)) static void level1(void)
{
	lib_a(crash_here);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 0;
	const char *ready = getenv("MAPPROG_READY");
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L }, now;

	for (int i = 2; i < argc; i++)
		if (!dlopen(argv[i], RTLD_NOW | RTLD_LOCAL)) {
			fprintf(stderr, "mapprog: %s\n", dlerror());
			return 2;
		}
	const char *go = getenv("MAPPROG_GO");
	struct timespec tick = { 0, 10000000L };

	if (ready)
		fclose(fopen(ready, "w"));
	if (go)
		for (long waited = 0; access(go, F_OK) != 0 && waited < ms; waited += 10)
			nanosleep(&tick, NULL);
	else
		nanosleep(&d, NULL);
	clock_gettime(CLOCK_REALTIME, &now);
	printf("%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	fflush(stdout);
	level1();
	return 0;
}
