/* xattr.h: the core file describes itself, as systemd-coredump's do. */
#ifndef CORESINK_XATTR_H
#define CORESINK_XATTR_H

#include "intake.h"

int xattr_describe(int fd, const struct kargs *k, const char *exe);

#endif
