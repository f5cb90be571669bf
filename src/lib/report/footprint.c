/*
 * footprint.c: what a crash cost the handler, as its entry says: the handler's peak memory (CORESINK_MAXRSS: it must
 * stay small whatever the size of the core), and the CPU the crash took until its entry (CORESINK_CPU_USEC, user
 * and system): the handler's threads (the copy, zstd, age) and the children it waited for (the stack trace's
 * sandbox). coresink-bench reads both; the CPU where no cgroup v2 counts it.
 */
#include <sys/resource.h>

#include "report-internal.h"

static unsigned long long cpu_usec(const struct rusage *ru)
{
	return (unsigned long long)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000ULL +
	       (unsigned long long)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
}

void report_footprint_fields(struct fields *f)
{
	struct rusage self, children;

	if (getrusage(RUSAGE_SELF, &self) < 0)
		return;
	fields_add(f, "CORESINK_MAXRSS=%ld", self.ru_maxrss * 1024L);
	if (getrusage(RUSAGE_CHILDREN, &children) == 0)
		fields_add(f, "CORESINK_CPU_USEC=%llu", cpu_usec(&self) + cpu_usec(&children));
}
