/* runtime.h: what a container's runtime recorded of it, read from the runtime's own files on the host. */
#ifndef CORESINK_RUNTIME_H
#define CORESINK_RUNTIME_H

#include <stddef.h>

#include "cgroup.h"

void runtime_read(struct container *c, const char *root);
int runtime_user_files(const struct container *c, const char *home);
int runtime_user_write(int out, const struct container *c, const char *home);
void runtime_user_take(struct container *c, const char *text, size_t len);

#endif
