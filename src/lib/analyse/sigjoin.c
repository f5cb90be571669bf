/*
 * sigjoin.c: which signatures are one bug. A crash's keys (signature.c) are its frames by module id and offset,
 * the same whatever debug info named them: two signatures seen with one set of keys are one bug, and so,
 * transitively, are all signatures linked by keys (a build seen stripped and with its debug file, then rebuilt and
 * seen both ways again). Union-find over the groups, the least index of a set its root.
 */
#include <stdlib.h>

#include "sigjoin.h"

static int by_keys(const void *a, const void *b)
{
	const struct sigjoin_ref *x = a, *y = b;

	return x->keys < y->keys ? -1 : x->keys > y->keys;
}

static size_t find(size_t *root, size_t i)
{
	while (root[i] != i) {
		root[i] = root[root[i]];
		i = root[i];
	}
	return i;
}

static void unite(size_t *root, size_t a, size_t b)
{
	a = find(root, a);
	b = find(root, b);
	if (a < b)
		root[b] = a;
	else
		root[a] = b;
}

/*
 * Into root[i], for each of n groups, the least index of the groups joined with group i by keys seen with both
 * (refs: each set of keys with a group it was seen with, any order, sorted here; a group index past n is ignored).
 */
void sigjoin(struct sigjoin_ref *refs, size_t nrefs, size_t *root, size_t n)
{
	for (size_t i = 0; i < n; i++)
		root[i] = i;
	if (nrefs > 1)
		qsort(refs, nrefs, sizeof(*refs), by_keys);
	for (size_t i = 1; i < nrefs; i++)
		if (refs[i].keys == refs[i - 1].keys && refs[i].group < n && refs[i - 1].group < n)
			unite(root, refs[i].group, refs[i - 1].group);
	for (size_t i = 0; i < n; i++)
		root[i] = find(root, i);
}
