/* sigjoin.h: which signatures are one bug, by the keys their crashes share (sigjoin.c, docs/signatures.md). */
#ifndef CORESINK_SIGJOIN_H
#define CORESINK_SIGJOIN_H

#include <stddef.h>
#include <stdint.h>

struct sigjoin_ref {
	uint64_t keys;   /* CORESINK_SIGNATURE_KEYS as a number */
	size_t group;    /* the signature's group it was seen with */
};

void sigjoin(struct sigjoin_ref *refs, size_t nrefs, size_t *root, size_t n);

#endif
