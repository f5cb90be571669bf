/*
 * fuzz_userwords.c: libFuzzer harness for what a rootless user's sandboxed child says of their container
 * (runtime_user_take). The child reads files the user makes, so its words are as hostile as the files are: whatever
 * it writes, every field taken is a terminated string that fits, a name clean, a pod's id hex and never another than
 * the cgroup's, labels only whole KEY=VALUE words of a label's alphabet.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "intake.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define POD "8f1c0c6a2d5e4b7f9a3c1e5d7b9f2a4c6e8d0b2f4a6c8e0d2b4f6a8c0e2d4b6f"

static bool name_ok(const char *s, size_t size)
{
	return strnlen(s, size) < size && (!s[0] || escape_clean(s));
}

static bool hex_ok(const char *s, size_t size)
{
	if (strnlen(s, size) >= size)
		return false;
	for (; *s; s++)
		if (!strchr("0123456789abcdefABCDEF", *s))
			return false;
	return true;
}

/* "KEY=VALUE" words one blank apart: a key of letters, digits and "-_./", a value of letters, digits and "-_.". */
static bool labels_ok(const char *s, size_t size)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	bool in_value = false;
	size_t key = 0;

	if (strnlen(s, size) >= size)
		return false;
	for (; *s; s++) {
		if (*s == ' ') {
			if (!in_value)
				return false;
			in_value = false, key = 0;
		} else if (*s == '=') {
			if (in_value || key == 0)
				return false;
			in_value = true;
		} else if (!strchr(alnum, *s) && !strchr(in_value ? "-_." : "-_./", *s)) {
			return false;
		} else if (!in_value) {
			key++;
		}
	}
	return s[-1] != ' ';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct container c;
	bool named_pod = size > 0 && (data[0] & 1);

	memset(&c, 0, sizeof(c));
	c.owner = 1000;
	(void) snprintf(c.id, sizeof(c.id), "%s", POD);
	/* The first byte chooses whether the cgroup named a pod already: the child may then only repeat it. */
	if (named_pod)
		(void) snprintf(c.pod, sizeof(c.pod), "%s", POD);
	runtime_user_take(&c, (const char *)data, size);
	if (!name_ok(c.name, sizeof(c.name)) || !name_ok(c.image, sizeof(c.image)) ||
	    !name_ok(c.pod_name, sizeof(c.pod_name)) || !hex_ok(c.pod, sizeof(c.pod)) ||
	    (named_pod && strcmp(c.pod, POD) != 0) || (!c.pod[0] && (c.pod_name[0] || c.pod_labels[0])) ||
	    (c.labels[0] && !labels_ok(c.labels, sizeof(c.labels))) ||
	    (c.pod_labels[0] && !labels_ok(c.pod_labels, sizeof(c.pod_labels))) ||
	    strcmp(c.runtime, "podman") != 0 || strncmp(c.state, "rootless ", 9) != 0 ||
	    strnlen(c.state, sizeof(c.state)) >= sizeof(c.state) ||
	    strnlen(c.pod_from, sizeof(c.pod_from)) >= sizeof(c.pod_from))
		abort();
	return 0;
}
