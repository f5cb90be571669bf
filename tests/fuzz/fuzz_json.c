/* fuzz_json.c: libFuzzer harness for the reader of container runtimes' JSON (base/jsonread.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Walks every value the reader can give, to a small depth: each string given is whole, terminated and in bounds. */
static void walk(struct json_span v, unsigned depth)
{
	static const char *const keys[] = { "a", "annotations", "Name", "Config", "id", "names", "metadata", "" };
	struct json_span e, k;
	char out[16];
	size_t pos = 0;

	if (json_text(v, out, sizeof(out)) == 0 && strnlen(out, sizeof(out)) >= sizeof(out))
		abort();
	if (depth > 4)
		return;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_member(v, keys[i], &e) == 0) {
			if (e.p < v.p || e.p + e.n > v.p + v.n)
				abort();
			walk(e, depth + 1);
		}
	for (int n = 0; n < 64 && json_element(v, &pos, &e) > 0; n++) {
		if (e.p < v.p || e.p + e.n > v.p + v.n)
			abort();
		walk(e, depth + 1);
	}
	pos = 0;
	for (int n = 0; n < 64 && json_pair(v, &pos, &k, &e) > 0; n++) {
		if (k.p < v.p || k.p + k.n > e.p || e.p + e.n > v.p + v.n || k.n < 2 || k.p[0] != '"')
			abort();
		walk(e, depth + 1);
	}
}

/* The input, not terminated (a file read is not): the reader must keep to its length. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct json_span v;

	if (!text)
		return 0;
	memcpy(text, data, size);
	if (json_whole(text, size, &v) == 0)
		walk(v, 0);
	free(text);
	return 0;
}
