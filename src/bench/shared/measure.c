/*
 * measure.c: the instruments of coresink-bench, for pipe and crash runs alike: wall and CPU clocks, the page
 * cache's Cached line sampled while a run goes on, dropped caches so that each run starts cold, and the bytes a
 * block device has written.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "measure.h"

#define SAMPLER_STACK (64 * 1024)

double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This process's user and system time. */
double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

uint64_t cached_bytes(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Cached: %llu kB", &kb) == 1)
			break;
	if (f)
		(void) fclose(f);
	return kb * 1024;
}

static void *sample_cache(void *arg)
{
	struct sampler *s = arg;
	const struct timespec tick = { 0, 5000000 };

	while (!atomic_load(&s->stop)) {
		uint64_t c = cached_bytes();

		if (c > s->peak)
			s->peak = c;
		nanosleep(&tick, NULL);
	}
	return NULL;
}

/*
 * Takes the baseline and starts sampling. The thread's stack is small: glibc keeps it mapped after the thread ends,
 * and a crash benchmark's victims, forked from this process, carry it into their cores. 0 or -errno.
 */
int sampler_start(struct sampler *s)
{
	pthread_attr_t attr;
	int r;

	s->start = s->peak = cached_bytes();
	atomic_store(&s->stop, false);
	r = pthread_attr_init(&attr);
	if (r == 0)
		r = pthread_attr_setstacksize(&attr, SAMPLER_STACK);
	if (r == 0)
		r = pthread_create(&s->thread, &attr, sample_cache, s);
	(void) pthread_attr_destroy(&attr);
	return -r;
}

/* Stops sampling; returns the peak growth of the page cache since the start. */
uint64_t sampler_stop(struct sampler *s)
{
	uint64_t c = cached_bytes();

	atomic_store(&s->stop, true);
	(void) pthread_join(s->thread, NULL);
	if (c > s->peak)
		s->peak = c;
	return s->peak - s->start;
}

void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void) !write(fd, "3\n", 2);
		(void) close(fd);
	}
}

/*
 * Bytes written so far to the block device that holds path, from its sector count in sysfs (field 7 of
 * /sys/dev/block/MAJ:MIN/stat, in 512-byte sectors, whatever the device's own). The whole device's: other
 * writers count too. 0 where there is no such device (tmpfs, btrfs's anonymous device numbers).
 */
uint64_t device_written(const char *path)
{
	char sys[64];
	unsigned long long f[7] = { 0 };
	struct stat st;
	FILE *fp;
	int n;

	if (stat(path, &st) < 0)
		return 0;
	(void) snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/stat", major(st.st_dev), minor(st.st_dev));
	fp = fopen(sys, "re");
	if (!fp)
		return 0;
	n = fscanf(fp, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6]);
	(void) fclose(fp);
	return n == 7 ? f[6] * 512 : 0;
}
