/* fuzz_config.c: libFuzzer harness for the config parser: any bytes, as lines of a config file, its rules too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct config c;
	struct diag d = { 0 };
	char *text = malloc(size + 1), *line, *save = NULL;
	unsigned n = 0;
	enum section in = SECTION_NONE;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	config_defaults(&c);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		(void) config_parse_line(&c, "fuzz", ++n, line, &in, &d);
	/* Whatever came in, the result is a usable configuration. */
	if (c.directory[0] != '/' || c.chunk_size < 65536 || c.chunk_size % 4096 || (c.file_mode & ~0666) ||
	    !(c.file_mode & 0400) || c.rate_interval == 0)
		abort();
	/* Every rule that is not bad applies without a complaint, and leaves a usable configuration too. */
	for (unsigned i = 0; i < c.n_rules; i++) {
		if (c.rules[i].bad)
			continue;
		config_apply_rule(&c, &c.rules[i]);
		if ((c.file_mode & ~0666) || !(c.file_mode & 0400) || c.rate_interval == 0 ||
		    c.minimal_stack_max < 4096)
			abort();
	}
	config_free(&c);
	free(text);
	return 0;
}
