/* chart.h: the median, and a bar chart of medians by gnuplot (chart.c). */
#ifndef CORESINK_BENCH_CHART_H
#define CORESINK_BENCH_CHART_H

double bench_median(double *v, int n);
int bench_bars(const char *path, const char *title, const char *ylabel, int n, const char *const *names,
	       const double *med, const double *lo, const double *hi);

#endif
