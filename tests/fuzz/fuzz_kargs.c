/* fuzz_kargs.c: libFuzzer harness for the kernel-argument parser and the file name made from them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "intake.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input is NUL-separated arguments, as the kernel would pass them (at most 16). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[16], name[NAME_MAX_LEN];
	int argc = 0;
	struct name_parts p;
	struct kargs k;
	struct diag d = { 0 };

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (char *p = copy; argc < 16 && p <= copy + size; p += strlen(p) + 1)
		argv[argc++] = p;
	(void) kargs_parse(argc, argv, &k, &d);
	if ((int)k.dumpmode < SUID_DUMP_DISABLE || k.dumpmode > SUID_DUMP_ROOT)
		abort();
	/* The stored name never leaves the directory, nor hides. */
	if (name_format(name, sizeof(name), k.comm, k.pid, k.time, 3, k.pid % 2, k.pid % 3 == 0) == 0 &&
	    (strchr(name, '/') || name[0] == '.' || strncmp(name, "core.", 5) != 0))
		abort();
	/* And reads back as what was written (a time past what gmtime can show is written as digits: no name). */
	if (name_format(name, sizeof(name), k.comm, k.pid, k.time, 3, k.pid % 2, k.pid % 3 == 0) == 0 && k.time < (1ULL << 35) &&
	    (name_parse(name, &p) != 0 || p.pid != k.pid || p.time != k.time || p.attempt != 3))
		abort();
	free(copy);
	return 0;
}
