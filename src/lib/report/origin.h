/* origin.h: whether a crash entry in the journal is one coresink wrote: the trust rule, in one place. */
#ifndef CORESINK_ORIGIN_H
#define CORESINK_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-journal.h>

#include "entryfields.h"

/* The root entry that vouches for a crash entry coresink filed in the crashing user's journal. */
#define CORESINK_SEAL_MESSAGE_ID "5e68f129416d40cdbbf1761bc3cc8ae4"
/* A seal repeats each sealed field of its entry under this prefix: CORESINK_SEALED_COREDUMP_EXE=... */
#define ORIGIN_SEALED_PREFIX "CORESINK_SEALED_"
/*
 * The seal's rule this coresink writes (CORESINK_SEAL_VERSION=): 1, a seal that says none, repeats the fields of
 * origin_sealed_fields; 2 adds the fingerprint of the core an entry holds (ORIGIN_CORE_DIGEST, the SHA-256 of its
 * COREDUMP=); 3 adds what the collect hooks said (CORESINK_COLLECT, CORESINK_HOOKS and each CORESINK_HOOK_KEY it
 * names). Each seal is judged by its own version's rule: those written before an upgrade stay good. What later
 * versions seal besides (a pod's fields, an encryption's recipients) comes with the next number.
 */
#define ORIGIN_SEAL_VERSION 3
#define ORIGIN_CORE_DIGEST "COREDUMP_SHA256"

/*
 * How a reader gets a field of an entry: "NAME=value" in *data (len bytes), as sd_journal_get_data() gives it;
 * 0, or -errno (-ENOENT: none).
 */
typedef int (*origin_get_fn)(void *ctx, const char *name, const void **data, size_t *len);

/*
 * What journald itself recorded of an entry's sender (_TRANSPORT, _UID: a client cannot set them), what the entry
 * says of itself, and what root's seals say of it. NULL for a field the entry lacks.
 */
struct origin {
	const char *ident;       /* SYSLOG_IDENTIFIER: the client's word, trusted only where root gave it */
	const char *transport;   /* _TRANSPORT */
	const char *uid;         /* _UID */
	const char *crash_uid;   /* COREDUMP_UID */
	bool sealed;             /* root sealed this very entry: its id, uid and every sealed field, the first of its id */
	bool own;                /* the reader is that user: their own entries are theirs to trust, seal or none */
};

/* One seal: the entry id it names, the uid, its sealed fields in canonical form, and the first entry of the id. */
struct seal {
	unsigned version;        /* its rule (ORIGIN_SEAL_VERSION) */
	char *id;
	char *uid;
	char *canon;
	size_t canon_len;
	char *first;             /* the cursor of the first crash entry with this id in the journal, or NULL */
};

/* The seals of a journal, sorted by id. */
struct seals {
	struct seal *s;
	size_t n;
};

extern const char *const origin_sealed_fields[];
extern const size_t origin_n_sealed_fields;

bool origin_trusted(const struct origin *o, const char **why);
int origin_canon(origin_get_fn get, void *ctx, const char *prefix, unsigned version, char **canon, size_t *len);
bool origin_sealed_by(const struct seals *s, const char *id, const char *uid, origin_get_fn get, void *ctx,
		      const struct seal **which);
int origin_seals_read(sd_journal *j, struct seals *s);
void origin_seals_free(struct seals *s);
bool origin_of_entry(struct entry_fields *x, const struct seals *s, uid_t reader, const char **why);
struct kargs;
struct outcome;
struct fields;
void origin_seal(const struct kargs *k, const struct outcome *o, const struct fields *entry, int corefd);

#endif
