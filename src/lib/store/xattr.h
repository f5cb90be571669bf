/* xattr.h: the core file describes itself, as systemd-coredump's do. */
#ifndef CORESINK_XATTR_H
#define CORESINK_XATTR_H

#include <stddef.h>

#include "intake.h"

/* The id of the crash entry a core was stored for (CORESINK_ENTRY=): the handler's record of whose core it is. */
#define XATTR_ENTRY "user.coresink.entry"

int xattr_describe(int fd, const struct kargs *k, const char *exe, const char *entry);
int xattr_entry(int fd, char *buf, size_t len);

#endif
