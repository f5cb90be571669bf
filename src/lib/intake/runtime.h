/* runtime.h: what a container's runtime recorded of it, read from the runtime's own files on the host. */
#ifndef CORESINK_RUNTIME_H
#define CORESINK_RUNTIME_H

#include "cgroup.h"

void runtime_read(struct container *c, const char *root);

#endif
