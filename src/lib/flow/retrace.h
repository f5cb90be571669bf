/* retrace.h: a stored core analysed again, with the debug info at hand now (retrace.c). */
#ifndef CORESINK_RETRACE_H
#define CORESINK_RETRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyse.h"

/* The crash as its entry tells it, and its core: a raw core, seekable. */
struct retrace_in {
	int corefd;
	uint64_t size;
	const char *exe;      /* COREDUMP_EXE */
	const char *path;     /* COREDUMP_FILENAME, "" for a core in the journal */
	int signal;
};

int crash_retrace(const char *config, bool named, const struct retrace_in *in, struct analysis *a,
		  struct signature *s);

#endif
