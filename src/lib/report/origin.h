/* origin.h: whether a crash entry in the journal is one coresink wrote. */
#ifndef CORESINK_ORIGIN_H
#define CORESINK_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-journal.h>

/* The root entry that vouches for a crash entry coresink filed in the crashing user's journal. */
#define CORESINK_SEAL_MESSAGE_ID "5e68f129416d40cdbbf1761bc3cc8ae4"

/*
 * What journald itself recorded of an entry's sender (_TRANSPORT, _UID: a client cannot set them), what the entry
 * says of itself, and whether root sent a seal for it. NULL for a field the entry lacks.
 */
struct origin {
	const char *ident;       /* SYSLOG_IDENTIFIER: the client's word, trusted only where root gave it */
	const char *transport;   /* _TRANSPORT */
	const char *uid;         /* _UID */
	const char *crash_uid;   /* COREDUMP_UID */
	bool sealed;             /* root sent a seal with this entry's CORESINK_ENTRY= and COREDUMP_UID= */
	bool own;                /* the reader is that user: their own entries are theirs to trust, seal or none */
};

/* The seals of a journal: entry id and uid, as "ID UID", sorted; each vouches for one entry, the first. */
struct seals {
	char **ids;
	bool *used;
	size_t n;
};

bool origin_trusted(const struct origin *o, const char **why);
int origin_seals_read(sd_journal *j, struct seals *s);
void origin_seals_free(struct seals *s);
bool origin_of_entry(sd_journal *j, struct seals *s, uid_t reader, const char **why);

#endif
