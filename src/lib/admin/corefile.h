/* corefile.h: a crash's core, found where coresink stored it and nowhere else, and its bytes written out. */
#ifndef CORESINK_ADMIN_COREFILE_H
#define CORESINK_ADMIN_COREFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "entries.h"
#include "config.h"
#include "tidy.h"

/* What list and info say of a crash's core, as coredumpctl does. */
enum core_state {
	CORE_PRESENT,
	CORE_TRUNCATED,      /* there, and cut (COREDUMP_TRUNCATED=1): a limit, or a dump the kernel stopped */
	CORE_MISSING,        /* no file of that crash in the directory (removed, vacuumed) */
	CORE_INACCESSIBLE,   /* there, not readable by this user */
	CORE_JOURNAL,        /* in the entry (Storage=journal) */
	CORE_NONE,           /* none was stored (skipped, suppressed, failed) */
	CORE_FORGED,         /* the entry names a file that is not this crash's core: never opened */
	_CORE_STATE_MAX
};

const char *core_state_to_string(enum core_state s);
int core_state_from_string(const char *s);
enum core_state corefile_state(int dirfd, const struct record *c, uint64_t *size);
int corefile_open(int dirfd, const struct record *c, char *name, size_t len, bool *compressed);
int corefile_find(int dirfd, const struct record *c, char *name, size_t len);
int corefile_write(const struct selection *s, int dirfd, const struct record *c, int out);
int corefile_directory(const struct config *c);
bool corefile_encrypted(const struct record *c);
int corefile_scratch(const struct record *c, const char *dir);
unsigned corefile_plaintext(int dirfd);
const char *corefile_strerror(int r);

#endif
