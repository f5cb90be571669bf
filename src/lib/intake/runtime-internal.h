/* runtime-internal.h: what runtime.c and podman.c share: where a containers/storage's files are, and the readers. */
#ifndef CORESINK_RUNTIME_INTERNAL_H
#define CORESINK_RUNTIME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base.h"
#include "runtime.h"

#define STATE_MAX (1u << 20)            /* a bundle's config.json, Docker's config.v2.json: tens of KiB */
#define STORAGE_MAX (16u << 20)         /* containers.json: about 600 bytes per container of the host */
#define GRAPH_ROOT "/var/lib/containers/storage"        /* containers/storage's, root's: podman's and CRI-O's */

/*
 * Where a containers/storage's files are: root (a test's directory, "" on the host), the graph root beneath it, and
 * whose they are: root's, or a user's rootless podman's (read as that user: runtime_user_write()).
 */
struct graph {
	const char *root;
	const char *dir;
	uid_t owner;
};


struct json_object *rt_json(const char *root, const char *path, size_t max);
void rt_take(struct json_object *obj, const char *key, const char *sub, char *out, size_t len);
void rt_take_labels(struct json_object *obj, const char *key, const char *sub, char *out, size_t len);
void rt_take_bytes(const char *v, size_t len, char *out, size_t size);
void rt_said(struct container *c, const char *runtime, const char *file);
char *rt_bolt_value(const char *root, const char *path, const char *const *names, size_t depth, const char *key,
		    size_t *len);
bool rt_storage(struct container *c, const struct graph *g, const char *runtime);
bool rt_podman(struct container *c, const struct graph *g);

#endif
