/*
 * boltmake.h: BoltDB files laid out page by page as bbolt lays them out (a page header, 16-byte elements whose
 * key and value positions count from the element itself, buckets as {root, sequence} or an inline page, two meta
 * pages under an FNV-1a checksum), for the tests of base/boltread.c: the cases a real podman or containerd does
 * not write on demand (branch pages, overflow, a torn meta page, hostile pages). The e2e tests read real ones.
 */
#ifndef CORESINK_BOLTMAKE_H
#define CORESINK_BOLTMAKE_H

#include <stdint.h>
#include <string.h>

#define BM_BRANCH 0x01
#define BM_LEAF 0x02
#define BM_META 0x04
#define BM_BUCKET 0x01

/* An element: a leaf's key and value (flags BM_BUCKET: the value is a bucket), or a branch's key and child. */
struct bm_elem {
	uint32_t flags;
	const char *key;
	const void *val;
	size_t vlen;
	uint64_t child;
};

static inline void bm_put16(unsigned char *p, uint16_t v) { memcpy(p, &v, sizeof(v)); }
static inline void bm_put32(unsigned char *p, uint32_t v) { memcpy(p, &v, sizeof(v)); }
static inline void bm_put64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof(v)); }

static inline void bm_header(unsigned char *p, uint64_t id, uint16_t flags, uint16_t count, uint32_t overflow)
{
	bm_put64(p, id);
	bm_put16(p + 8, flags);
	bm_put16(p + 10, count);
	bm_put32(p + 12, overflow);
}

/* Meta page `which` (0 or 1) of a file of pages of psize bytes. */
static inline void bm_meta(unsigned char *file, uint32_t psize, unsigned which, uint64_t root, uint64_t pages,
			   uint64_t txid)
{
	unsigned char *p = file + (size_t)which * psize, *m = p + 16;
	uint64_t h = 14695981039346656037ull;

	bm_header(p, which, BM_META, 0, 0);
	bm_put32(m, 0xED0CDAEDu);
	bm_put32(m + 4, 2);
	bm_put32(m + 8, psize);
	bm_put32(m + 12, 0);
	bm_put64(m + 16, root);
	bm_put64(m + 24, 0);
	bm_put64(m + 32, 2);            /* the freelist's page */
	bm_put64(m + 40, pages);
	bm_put64(m + 48, txid);
	for (int i = 0; i < 56; i++)
		h = (h ^ m[i]) * 1099511628211ull;
	bm_put64(m + 56, h);
}

/* A page of kind BM_LEAF or BM_BRANCH at p with n elements: the bytes it takes. */
static inline size_t bm_page(unsigned char *p, uint64_t id, uint16_t kind, uint32_t overflow,
			     const struct bm_elem *e, unsigned n)
{
	size_t data = 16 + (size_t)n * 16;

	bm_header(p, id, kind, (uint16_t)n, overflow);
	for (unsigned i = 0; i < n; i++) {
		unsigned char *at = p + 16 + (size_t)i * 16;
		size_t klen = strlen(e[i].key);

		if (kind == BM_BRANCH) {
			bm_put32(at, (uint32_t)(data - (size_t)(at - p)));
			bm_put32(at + 4, (uint32_t)klen);
			bm_put64(at + 8, e[i].child);
		} else {
			bm_put32(at, e[i].flags);
			bm_put32(at + 4, (uint32_t)(data - (size_t)(at - p)));
			bm_put32(at + 8, (uint32_t)klen);
			bm_put32(at + 12, (uint32_t)e[i].vlen);
		}
		memcpy(p + data, e[i].key, klen);
		data += klen;
		if (kind == BM_LEAF) {
			memcpy(p + data, e[i].val, e[i].vlen);
			data += e[i].vlen;
		}
	}
	return data;
}

/* A bucket's value at v: {root, 0}, and where root is 0 its page inline, of n elements: the bytes it takes. */
static inline size_t bm_bucket(unsigned char *v, uint64_t root, const struct bm_elem *e, unsigned n)
{
	bm_put64(v, root);
	bm_put64(v + 8, 0);
	return root ? 16 : 16 + bm_page(v + 16, 0, BM_LEAF, 0, e, n);
}

#endif
