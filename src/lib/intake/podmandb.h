/* podmandb.h: a container's pod from podman 5's SQLite database (podmandb.c). */
#ifndef CORESINK_PODMANDB_H
#define CORESINK_PODMANDB_H

#include <stddef.h>
#include <sys/types.h>

/* What podman 5's database says of a container and its pod: names as they are, labels as JSON objects' text. */
struct podman_rows {
	char name[256];            /* the container's */
	char image[256];           /* the image it was made from, as asked for (rootfsImageName) */
	char pod[80];              /* in: the pod's id where the cgroup gave it, else ""; out: as the database has it */
	char pod_name[256];
	char pod_labels[4096];
	char labels[4096];         /* the container's own */
};

int podman_db_read(const char *path, uid_t owner, const char *id, struct podman_rows *rows, const char **said);
int podman_db_load(void);

#endif
