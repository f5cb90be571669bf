/* jsonread.h: values found by key in JSON a container runtime wrote: bounded, in place, no allocation. */
#ifndef CORESINK_JSONREAD_H
#define CORESINK_JSONREAD_H

#include <stddef.h>

/* A value's text inside a JSON document (an object, an array, a string with its quotes, ...). */
struct json_span {
	const char *p;
	size_t n;
};

int json_whole(const char *text, size_t n, struct json_span *v);
int json_member(struct json_span obj, const char *key, struct json_span *val);
int json_element(struct json_span arr, size_t *pos, struct json_span *val);
int json_pair(struct json_span obj, size_t *pos, struct json_span *key, struct json_span *val);
int json_text(struct json_span v, char *out, size_t len);

#endif
