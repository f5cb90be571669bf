/*
 * jsondoc.c: the one policy for the JSON of container runtimes (an OCI bundle's config.json, Docker's config.v2.json,
 * podman's and containerd's records, podman's API), parsed by json-c. Those files are root's, but what is in them is
 * not: a pod's author chooses its names, labels and annotations. So a document is taken only whole (one value, RFC
 * 8259 strictly, UTF-8 checked, nothing after it but blanks), nesting is bounded, and a string comes out only whole,
 * valid and free of control characters: a name that does not fit is no name, never a cut one.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "escape.h"
#include "jsondoc.h"

#define DEPTH_MAX 64

/* The document text[0..n) as one JSON value, checked whole: json-c's object (json_object_put() it), or NULL. */
struct json_object *jdoc_parse(const char *text, size_t n)
{
	struct json_tokener *tok;
	struct json_object *doc = NULL;
	size_t end;

	if (n == 0 || n > INT_MAX || !(tok = json_tokener_new_ex(DEPTH_MAX)))
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	doc = json_tokener_parse_ex(tok, text, (int)n);
	end = json_tokener_get_parse_end(tok);
	/* A value that ended before the text did: only blanks may follow. */
	while (end < n && text[end] && strchr(" \t\r\n", text[end]))
		end++;
	if (!doc || json_tokener_get_error(tok) != json_tokener_success || end != n) {
		json_object_put(doc);
		doc = NULL;
	}
	json_tokener_free(tok);
	return doc;
}

/* The member key of object obj into *val: 0, -ENOENT where it has none, -EINVAL where obj is no object. */
int jdoc_member(struct json_object *obj, const char *key, struct json_object **val)
{
	if (!json_object_is_type(obj, json_type_object))
		return -EINVAL;
	return json_object_object_get_ex(obj, key, val) ? 0 : -ENOENT;
}

/*
 * The string v into out (len bytes with its terminator): 0; -EINVAL where v is no string or holds a NUL, a control
 * character or invalid UTF-8; -ENAMETOOLONG where it does not fit. out is "" but on success.
 */
int jdoc_text(struct json_object *v, char *out, size_t len)
{
	const char *s;
	size_t n;

	out[0] = '\0';
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (strlen(s) != n || !escape_clean(s))
		return -EINVAL;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(out, s, n + 1);
	return 0;
}
