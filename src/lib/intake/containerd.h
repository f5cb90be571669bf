/* containerd.h: the state and root directories of the containerds running here (containerd.c). */
#ifndef CORESINK_CONTAINERD_H
#define CORESINK_CONTAINERD_H

#include <stddef.h>

#define CONTAINERD_PATH_MAX 256
#define CONTAINERD_MAX 8

struct containerd_dirs {
	char state[CONTAINERD_PATH_MAX];   /* its tasks' bundles: STATE/io.containerd.runtime.v2.task/NS/ID */
	char root[CONTAINERD_PATH_MAX];    /* its metadata: ROOT/io.containerd.metadata.v1.bolt/meta.db */
};

size_t containerd_find(const char *root, struct containerd_dirs *v, size_t max);

#endif
