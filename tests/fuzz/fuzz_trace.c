/*
 * fuzz_trace.c: libFuzzer harness for the stack-trace analysis's hostile input. In process: the ELF package note's
 * JSON, which must either be refused or come back, written by pkgnote_json() and read again, as the same pairs of
 * clean text. In the sandbox, for inputs that look like an ELF file (the seed is a real core with its notes and no
 * memory): the whole analysis, which must always end (a deadline), report either a trace or why not, and stay
 * within its output bound; whatever libdw does with the crafted core happens in the child.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyse.h"
#include "analyse/pkgnote.h"
#include "base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A note that parses is written back and parses again to the same pairs. */
static void note_roundtrip(const uint8_t *data, size_t size)
{
	struct pkgnote p, back;
	char *out = NULL, *obj;
	size_t len = 0;
	FILE *f;

	if (pkgnote_parse((const char *)data, size, &p) < 0)
		return;
	for (int i = 0; i < p.n; i++)
		if (!escape_clean(p.key[i]) || !escape_clean(p.value[i]))
			abort();
	f = open_memstream(&out, &len);
	if (!f)
		return;
	pkgnote_json(f, "m", &p, NULL);
	fclose(f);
	obj = strchr(out, '{');
	if (!obj || pkgnote_parse(obj, strlen(obj), &back) < 0 || back.n != p.n)
		abort();
	for (int i = 0; i < p.n; i++)
		if (strcmp(p.key[i], back.key[i]) != 0 || strcmp(p.value[i], back.value[i]) != 0)
			abort();
	free(out);
}

static void analyse(const uint8_t *data, size_t size)
{
	struct analysis_opts o = { .exe = "", .uid = 65534, .gid = 65534, .core_size = size, .timeout_ms = 2000,
				   .root_fd = -1 };
	struct analysis a;
	int fd = memfd_create("fuzz-core", MFD_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size || analysis_run(fd, &o, &a) < 0) {
		close(fd);
		return;
	}
	close(fd);
	if (!a.trace && !a.why[0])
		abort();
	if (a.trace && strlen(a.trace) > ANALYSIS_OUTPUT_MAX)
		abort();
	analysis_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	note_roundtrip(data, size);
	if (size >= 4 && memcmp(data, "\177ELF", 4) == 0)
		analyse(data, size);
	return 0;
}
