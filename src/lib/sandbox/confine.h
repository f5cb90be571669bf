/* confine.h: the sandbox child's confinement of itself: ids, namespaces, capabilities, dumpable, seccomp. */
#ifndef CORESINK_CONFINE_H
#define CORESINK_CONFINE_H

#include <sys/types.h>

#include "sandbox.h"

int confine_exec(const struct sandbox_limits *l, pid_t parent, unsigned *applied);
int confine(const struct sandbox_limits *l, pid_t parent, unsigned *applied);
int confine_fetch(const char *writable, unsigned *applied);

#endif
