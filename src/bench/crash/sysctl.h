/* sysctl.h: the kernel settings coresink-bench --crash changes, and puts back whatever happens. */
#ifndef CORESINK_BENCH_SYSCTL_H
#define CORESINK_BENCH_SYSCTL_H

int sysctl_take(void);
int sysctl_core_pattern(const char *pattern);
void sysctl_restore(void);

#endif
