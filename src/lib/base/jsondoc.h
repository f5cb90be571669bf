/* jsondoc.h: a JSON document another program wrote (a container runtime's), read through json-c, bounded. */
#ifndef CORESINK_JSONDOC_H
#define CORESINK_JSONDOC_H

#include <stddef.h>

#include <json-c/json.h>

struct json_object *jdoc_parse(const char *text, size_t n);
int jdoc_member(struct json_object *obj, const char *key, struct json_object **val);
int jdoc_text(struct json_object *v, char *out, size_t len);

#endif
