/* fuzz_state.c: libFuzzer harness for the other parsers of untrusted text: the shared ledger, cgroup paths, names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "intake.h"
#include "ledger/ledger.h"
#include "tidy/vacuum.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ledger l, back;
	static char text[65536];
	char *copy = malloc(size + 1);
	struct units u;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	ledger_parse(&l, copy);
	/* What parses, formats and parses back to the same. */
	ledger_format(&l, text, sizeof(text));
	ledger_parse(&back, text);
	if (back.published != l.published || back.n_inflight != l.n_inflight || back.n_rate != l.n_rate)
		abort();
	cgroup_units(copy, &u);
	(void) cgroup_path(copy);
	if (vacuum_is_core(copy) && (strchr(copy, '/') || copy[0] == '.'))
		abort();
	free(copy);
	return 0;
}
