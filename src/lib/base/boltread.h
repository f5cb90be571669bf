/* boltread.h: values found by bucket path and key in a BoltDB file (podman 4's state, containerd's metadata). */
#ifndef CORESINK_BOLTREAD_H
#define CORESINK_BOLTREAD_H

#include <stddef.h>

/* A bucket's place: the names of the buckets from the root down to it. */
struct bolt_path {
	const char *const *names;
	size_t depth;
};

typedef void bolt_each_fn(const char *key, size_t klen, const char *value, size_t vlen, void *arg);

int bolt_get(int fd, struct bolt_path at, const char *key, char **value, size_t *len);
int bolt_each(int fd, struct bolt_path at, bolt_each_fn *each, void *arg);

#endif
