/* retraced.h: the entry of a crash analysed again (retraced.c). */
#ifndef CORESINK_RETRACED_H
#define CORESINK_RETRACED_H

#include <stdint.h>
#include <sys/types.h>

#include "analyse.h"

/* coresink's own: a crash analysed again (coresinkctl retrace), linked to its entry by CORESINK_RETRACE_OF. */
#define CORESINK_RETRACE_MESSAGE_ID "baa83633e2924caa8fbb9d3beeb07bb4"

/* The crash as its entry tells it: the fields the new entry repeats, for journalctl's matches. */
struct retrace_of {
	const char *entry_id;       /* CORESINK_ENTRY of the crash's entry */
	const char *signature;      /* its CORESINK_SIGNATURE, "" for none */
	uint64_t usec;              /* when the journal got it (its realtime), microseconds */
	pid_t pid;
	uid_t uid;
	int signal;
	uint64_t timestamp;         /* COREDUMP_TIMESTAMP: the crash's, microseconds */
	const char *comm, *exe, *filename, *hostname;
};

int report_retrace(const struct retrace_of *of, const struct analysis *a, const struct signature *s);

#endif
