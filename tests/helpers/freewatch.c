/*
 * freewatch.c: samples the free space of a file system (f_bavail * f_frsize) every 100 us until SIGTERM, then
 * prints the lowest value seen. Test helper: it shows the reserve held during a capture, not only after it.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void) sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	uint64_t low = UINT64_MAX;
	unsigned long samples = 0;
	struct statfs s;

	if (argc != 2)
		return fprintf(stderr, "usage: freewatch DIR\n"), 2;
	signal(SIGTERM, on_term);
	while (!stop) {
		if (statfs(argv[1], &s) == 0 && (uint64_t)s.f_bavail * (uint64_t)s.f_frsize < low)
			low = (uint64_t)s.f_bavail * (uint64_t)s.f_frsize;
		samples++;
		usleep(100);
	}
	printf("%llu %lu\n", (unsigned long long)low, samples);
	return 0;
}
