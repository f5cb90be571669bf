/* origin.h: whether a crash entry in the journal is one coresink wrote. */
#ifndef CORESINK_ORIGIN_H
#define CORESINK_ORIGIN_H

#include <stdbool.h>
#include <systemd/sd-journal.h>

/*
 * What journald itself recorded of an entry's sender (the fields a client cannot set, which start with '_'), and
 * the crash's uid as the entry says it. NULL for a field the entry lacks.
 */
struct origin {
	const char *transport;   /* _TRANSPORT */
	const char *comm;        /* _COMM */
	const char *exe;         /* _EXE */
	const char *uid;         /* _UID */
	const char *cgroup;      /* _SYSTEMD_CGROUP */
	const char *crash_uid;   /* COREDUMP_UID */
};

bool origin_trusted(const struct origin *o, const char **why);
bool origin_of_entry(sd_journal *j, const char **why);

#endif
