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
	const char *ident;       /* SYSLOG_IDENTIFIER: the client's, trusted only where root sent it */
	const char *transport;   /* _TRANSPORT */
	const char *comm;        /* _COMM */
	const char *exe;         /* _EXE */
	const char *uid;         /* _UID */
	const char *cgroup;      /* _SYSTEMD_CGROUP: journald records none for the root cgroup */
	const char *crash_uid;   /* COREDUMP_UID */
	const char *login;       /* _AUDIT_LOGINUID, or else _SYSTEMD_OWNER_UID: a process of someone's login */
};

bool origin_trusted(const struct origin *o, const char **why);
bool origin_of_entry(sd_journal *j, const char **why);

#endif
