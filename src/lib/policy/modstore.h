/* modstore.h: the modules kept beside the cores, once per build-id, removed with their last core (modstore.c). */
#ifndef CORESINK_MODSTORE_H
#define CORESINK_MODSTORE_H

#include <stdint.h>
#include <sys/types.h>

#define MODSTORE_DIR ".modules"

int modstore_keep(int at, const char *core, const char *id, int in, uint64_t size, uint64_t room, gid_t gid,
		  uint64_t *added);
void modstore_release(int at, const char *core, uint64_t *freed);
uint64_t modstore_total(int at);

#endif
