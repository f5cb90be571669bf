/* fuzz_json.c: libFuzzer harness for the policy over container runtimes' JSON (base/jsondoc.c, json-c beneath). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Walks every value of the document, to a small depth: each string given is whole, terminated and in bounds. */
static void walk(struct json_object *v, unsigned depth)
{
	char out[16];
	size_t n;

	if (jdoc_text(v, out, sizeof(out)) == 0 && strnlen(out, sizeof(out)) >= sizeof(out))
		abort();
	if (depth > 4)
		return;
	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, e) {
			struct json_object *again;

			if (jdoc_member(v, key, &again) < 0)
				abort();
			walk(e, depth + 1);
		}
	} else if (json_object_is_type(v, json_type_array)) {
		n = json_object_array_length(v);
		for (size_t i = 0; i < n && i < 64; i++)
			walk(json_object_array_get_idx(v, i), depth + 1);
	}
}

/* The input, not terminated (a file read is not): the parser must keep to its length. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct json_object *doc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	if ((doc = jdoc_parse(text, size)))
		walk(doc, 0);
	json_object_put(doc);
	free(text);
	return 0;
}
