/* modstore.h: the modules kept beside the cores, once per build-id, removed with their last core (modstore.c). */
#ifndef CORESINK_MODSTORE_H
#define CORESINK_MODSTORE_H

#include <stdint.h>
#include <sys/types.h>

#define MODSTORE_DIR ".modules"
#define MODSTORE_PATH ".path"   /* beside a core's link ID, ID.path: the module's path in the process */

int modstore_keep(int at, const char *core, const char *id, const char *path, int in, uint64_t size, uint64_t *room,
		  gid_t gid, uint64_t *added);
int modstore_each(int at, const char *core, void (*kept)(void *ctx, const char *file, const char *path), void *ctx);
void modstore_release(int at, const char *core, uint64_t *freed);
uint64_t modstore_total(int at);

#endif
