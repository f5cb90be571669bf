/*
 * fuzz_coreplan.c: libFuzzer harness for the minimal core's plan: any bytes as a core's first bytes (its headers and
 * notes), with a module list at made-up addresses. Whatever comes in, a plan either fails or keeps its promises:
 * pieces in input order, each kept one page aligned, the headers within the prefix.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "minicore/coreplan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct core_notes n;
	static struct linkmap lm = { .n = 2, .spans = { { 0x601000, 0x601040 }, { 0x7fff0000, 0x7fff0100 } } };
	struct coreplan p;
	uint64_t need, at;

	if (coreplan_need(data, size, &need) != 0 || coreplan_notes(data, need, &n) != 0)
		return 0;
	if (coreplan_build(data, need, &n, &lm, 1 << 20, &p) == 0) {
		at = p.head_end;
		for (size_t i = 0; i < p.n_pieces; i++) {
			if (p.pieces[i].in_off < at || (p.pieces[i].kind != PIECE_DROP && p.pieces[i].vaddr % 4096))
				abort();
			at = p.pieces[i].in_off + p.pieces[i].len;
		}
		if (p.prefix_len % 4096 || p.prefix_len < 64)
			abort();
		coreplan_free(&p);
	}
	core_notes_free(&n);
	return 0;
}
