/* xattr.h: the core file describes itself, as systemd-coredump's do. */
#ifndef CORESINK_XATTR_H
#define CORESINK_XATTR_H

#include <stdbool.h>
#include <stddef.h>

#include "base.h"
#include "intake.h"

/* The record of the crash entry a core was stored for (CORESINK_ENTRY=): the handler's word of whose core it is. */
#define XATTR_ENTRY "user.coresink.entry"
/* An entry's id: 128 bits in hex. Its record: this prefix and the id's SHA-256 (an older coresink's: the id). */
#define XATTR_ID_LEN 32
#define XATTR_RECORD_PREFIX "sha256:"
#define XATTR_RECORD_MAX (sizeof(XATTR_RECORD_PREFIX) + DIGEST_HEX)

int xattr_describe(int fd, const struct kargs *k, const char *exe, const char *entry);
int xattr_record_of(const char *entry, char *buf, size_t len);
bool xattr_names_entry(const char *record, const char *entry);
int xattr_entry(int fd, char *buf, size_t len);

#endif
