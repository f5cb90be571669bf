/* fuzz_kargs.c: libFuzzer harness for the kernel-argument parser and the file name made from them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kargs.h"
#include "name.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input is NUL-separated arguments, as the kernel would pass them (at most 16). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[16], name[NAME_MAX_LEN];
	int argc = 0;
	struct kargs k;
	struct diag d = { 0 };

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (char *p = copy; argc < 16 && p <= copy + size; p += strlen(p) + 1)
		argv[argc++] = p;
	(void) kargs_parse(argc, argv, &k, &d);
	if (k.dumpmode < 0 || k.dumpmode > 2)
		abort();
	/* The stored name never leaves the directory, nor hides. */
	if (name_format(name, sizeof(name), k.comm, k.pid, k.time, 3) == 0 &&
	    (strchr(name, '/') || name[0] == '.' || strncmp(name, "core.", 5) != 0))
		abort();
	free(copy);
	return 0;
}
