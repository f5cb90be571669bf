/* podmandb.h: a container's pod from podman 5's SQLite database (podmandb.c). */
#ifndef CORESINK_PODMANDB_H
#define CORESINK_PODMANDB_H

#include <stddef.h>

int podman_db_pod(const char *path, const char *id, char *pod, size_t pod_len, char *name, size_t name_len,
		  char *json, size_t json_len, const char **said);

#endif
