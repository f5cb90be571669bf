/* chart.c: what both benchmarks sum their runs up with: the median, and a bar chart of medians by gnuplot. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v and returns its median. */
double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	if (n == 0)
		return 0;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Sums up one variant's runs. */
/* A bar chart of medians with min-max error bars, by gnuplot: PNG or SVG by the file's extension. 0 or -errno. */
int bench_bars(const char *path, const char *title, const char *ylabel, int n, const char *const *names,
	       const double *med, const double *lo, const double *hi)
{
	const char *ext = strrchr(path, '.');
	bool svg = ext && strcmp(ext, ".svg") == 0;
	FILE *g = popen("gnuplot 2>&1", "w");

	if (!g)
		return -errno;
	fprintf(g, "set terminal %s size 900,500\nset output '%s'\n", svg ? "svg" : "png", path);
	fprintf(g, "set title '%s'\nset ylabel '%s'\n"
		   "set style fill solid 0.6\nset boxwidth 0.6\nset yrange [0:*]\nset xtics rotate by -20\n"
		   "set grid ytics\nplot '-' using 0:2:3:4:(0.3):xtic(1) with boxerrorbars notitle\n", title, ylabel);
	for (int i = 0; i < n; i++)
		fprintf(g, "\"%s\" %.3f %.3f %.3f\n", names[i], med[i], lo[i], hi[i]);
	fprintf(g, "e\n");
	return pclose(g) == 0 ? 0 : -EIO;
}
