/*
 * boltread.c: a read-only look into a BoltDB file, bbolt's format, where podman 4 keeps a pod's name and labels and
 * containerd its pods' labels: a copy-on-write B+tree of pages under two meta pages, buckets nested as keys whose
 * value is a bucket's root page or, when small, its page inline. Only the pages on the way are read (pread, no
 * mmap), each checked before it is used: its id, its kind, every element inside it; at most RUN_MAX bytes a page
 * run, DEPTH_MAX levels a tree, PAGES_MAX pages a walk. The writer's lock is not taken (containerd holds it as long
 * as it runs): bbolt writes a transaction's pages where no committed tree reaches, then its meta page, so a walk
 * that reads the same transaction id before and after saw one committed tree; else it is walked again, TRIES times
 * at most. Integers are in the machine's byte order, as bbolt writes them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "basics.h"
#include "boltread.h"
#include "io.h"

#define HDR 16                  /* a page's header: id u64, flags u16, count u16, overflow u32 */
#define ELEM 16                 /* a branch's element: pos, ksize, pgid; a leaf's: flags, pos, ksize, vsize */
#define META_LEN 64             /* magic, version, page size, flags, root (pgid, sequence), freelist, pgid, txid, sum */
#define META_SUMMED 56          /* the bytes the checksum covers */
#define META_MAGIC 0xED0CDAEDu
#define META_VERSION 2
#define PAGE_BRANCH 0x01
#define PAGE_LEAF 0x02
#define PAGE_META 0x04
#define LEAF_BUCKET 0x01        /* a leaf element whose value is a bucket */
#define BUCKET_HDR 16           /* a bucket's value: root pgid u64 (0: inline page follows), sequence u64 */
#define RUN_MAX (16u << 20)
#define DEPTH_MAX 32
#define PAGES_MAX 4096
#define HELD_MAX (32u << 20)    /* a walk's pages held at once, from the root down */
#define TRIES 3
#define MIN(a, b) ((a) < (b) ? (a) : (b))

struct db {
	int fd;
	uint32_t psize;
	uint64_t pages;         /* the high-water mark: pages 0 to pages - 1 exist */
	uint64_t txid;
	uint64_t root;
};

/* A page's bytes: buf is the malloc'd run read from the file, or NULL for a bucket's inline page inside another. */
struct page {
	unsigned char *buf;
	const unsigned char *p;
	size_t n;
};

/* A bucket: its root page, or (root 0) its inline page, a malloc'd copy. */
struct bucket {
	uint64_t root;
	unsigned char *inl;
	size_t inl_n;
};

struct elem {
	const unsigned char *key, *val;
	size_t klen, vlen;
	uint32_t flags;
	uint64_t child;
};

static uint16_t u16(const unsigned char *p) { uint16_t v; memcpy(&v, p, sizeof(v)); return v; }
static uint32_t u32(const unsigned char *p) { uint32_t v; memcpy(&v, p, sizeof(v)); return v; }
static uint64_t u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, sizeof(v)); return v; }

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	while (n--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

/* The meta page at off, checked (magic, version, checksum, a page size bbolt can have): 0 or -errno. */
static int meta_at(int fd, off_t off, struct db *m)
{
	unsigned char b[HDR + META_LEN];
	const unsigned char *meta = b + HDR;
	uint32_t ps;

	if (io_pread_full(fd, b, sizeof(b), off) != (ssize_t)sizeof(b))
		return -EIO;
	ps = u32(meta + 8);
	if (!(u16(b + 8) & PAGE_META) || u32(meta) != META_MAGIC || u32(meta + 4) != META_VERSION ||
	    fnv1a(meta, META_SUMMED) != u64(meta + META_SUMMED) || ps < 512 || ps > 65536 || (ps & (ps - 1)))
		return -EINVAL;
	m->psize = ps;
	m->root = u64(meta + 16);
	m->pages = u64(meta + 40);
	m->txid = u64(meta + 48);
	return 0;
}

/* The newer of the two meta pages that is whole, its pages inside the file: 0 or -errno. */
static int meta(int fd, struct db *db)
{
	struct db a = { .fd = fd }, b = { .fd = fd };
	int ra = meta_at(fd, 0, &a), rb = meta_at(fd, ra == 0 ? a.psize : 4096, &b);
	struct stat st;

	if (ra < 0 && rb < 0)
		return ra;
	*db = (ra < 0 || (rb == 0 && b.txid > a.txid)) ? b : a;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || db->pages > (uint64_t)st.st_size / db->psize || db->root < 2 ||
	    db->root >= db->pages)
		return -EINVAL;
	return 0;
}

static unsigned count_of(const struct page *pg)
{
	return u16(pg->p + 10);
}

/* Whether the page's elements, as many as its header counts, lie inside it: 0 or -EINVAL. */
static int elems_fit(const struct page *pg)
{
	return HDR + (size_t)count_of(pg) * ELEM <= pg->n ? 0 : -EINVAL;
}

/* Page id and its overflow pages, read whole into pg (pg->buf to free either way): 0 or -errno. */
static int page_load(const struct db *db, uint64_t id, struct page *pg)
{
	unsigned char h[HDR];
	uint64_t run;

	pg->buf = NULL;
	if (id < 2 || id >= db->pages)
		return -EINVAL;
	if (io_pread_full(db->fd, h, sizeof(h), (off_t)(id * db->psize)) != (ssize_t)sizeof(h))
		return -EIO;
	run = (u32(h + 12) + 1ull) * db->psize;
	if (u64(h) != id || !(u16(h + 8) & (PAGE_BRANCH | PAGE_LEAF)) || u32(h + 12) >= db->pages - id ||
	    run > RUN_MAX)
		return -EINVAL;
	if (!(pg->buf = malloc(run)))
		return -ENOMEM;
	if (io_pread_full(db->fd, pg->buf, run, (off_t)(id * db->psize)) != (ssize_t)run ||
	    memcmp(pg->buf, h, sizeof(h)) != 0) {
		free(pg->buf);
		pg->buf = NULL;
		return -EIO;
	}
	pg->p = pg->buf;
	pg->n = run;
	return elems_fit(pg);
}

/* Element i of a page, its key and value (a leaf's) or child (a branch's) inside the page: 0 or -EINVAL. */
static int elem_at(const struct page *pg, unsigned i, struct elem *e)
{
	const unsigned char *at = pg->p + HDR + (size_t)i * ELEM;
	bool branch = u16(pg->p + 8) & PAGE_BRANCH;
	size_t off;

	if (i >= count_of(pg) || HDR + ((size_t)i + 1) * ELEM > pg->n)
		return -EINVAL;
	e->flags = branch ? 0 : u32(at);
	e->klen = u32(at + (branch ? 4 : 8));
	e->vlen = branch ? 0 : u32(at + 12);
	e->child = branch ? u64(at + 8) : 0;
	/* A position counts from the element itself. */
	off = (size_t)(at - pg->p) + u32(at + (branch ? 0 : 4));
	if (off > pg->n || e->klen > pg->n - off || e->vlen > pg->n - off - e->klen)
		return -EINVAL;
	e->key = pg->p + off;
	e->val = e->key + e->klen;
	return 0;
}

/* bytes.Compare's order, the one bbolt sorts keys in. */
static int key_cmp(const unsigned char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, MIN(an, bn));

	return c ? c : (an > bn) - (an < bn);
}

/* The bucket's root page, into pg: 0 or -errno. */
static int root_page(const struct db *db, const struct bucket *b, struct page *pg)
{
	if (b->root)
		return page_load(db, b->root, pg);
	*pg = (struct page) { NULL, b->inl, b->inl_n };
	return pg->n >= HDR && (u16(pg->p + 8) & PAGE_LEAF) ? elems_fit(pg) : -EINVAL;
}

/* The branch element to go down for key: the last whose key is not above it, or the first. */
static int branch_child(const struct page *pg, const char *key, size_t klen, uint64_t *child)
{
	struct elem e = { 0 };
	unsigned n = count_of(pg);

	*child = 0;
	for (unsigned i = 0; i < n; i++) {
		if (elem_at(pg, i, &e) < 0)
			return -EINVAL;
		if (i > 0 && key_cmp(e.key, e.klen, key, klen) > 0)
			break;
		*child = e.child;
	}
	return *child ? 0 : -EINVAL;
}

/* The leaf element of key in bucket b, into e, its page kept in pg (free pg->buf after): 1 found, 0 not, -errno. */
static int find(const struct db *db, const struct bucket *b, const char *key, size_t klen, struct page *pg,
		struct elem *e)
{
	uint64_t child;
	int r = root_page(db, b, pg);

	for (unsigned depth = 0; r == 0 && depth < DEPTH_MAX; depth++) {
		if (u16(pg->p + 8) & PAGE_LEAF) {
			for (unsigned i = 0; i < count_of(pg); i++) {
				if (elem_at(pg, i, e) < 0)
					return -EINVAL;
				if (key_cmp(e->key, e->klen, key, klen) == 0)
					return 1;
			}
			return 0;
		}
		r = branch_child(pg, key, klen, &child);
		free(pg->buf);
		pg->buf = NULL;
		if (r == 0)
			r = page_load(db, child, pg);
	}
	return r < 0 ? r : -ELOOP;
}

/* Bucket b becomes its sub-bucket name: 0, -ENOENT, or -errno. */
static int descend(const struct db *db, struct bucket *b, const char *name)
{
	struct page pg = { 0 };
	struct elem e = { 0 };
	int r = find(db, b, name, strlen(name), &pg, &e);

	struct bucket sub = { 0 };

	if (r == 1 && (!(e.flags & LEAF_BUCKET) || e.vlen < BUCKET_HDR))
		r = -EINVAL;
	if (r == 1 && !(sub.root = u64(e.val))) {
		/* Inline: copied, before b's own inline page (where e may lie) is freed. */
		sub.inl_n = e.vlen - BUCKET_HDR;
		if (sub.inl_n < HDR)
			r = -EINVAL;
		else if (!(sub.inl = malloc(sub.inl_n)))
			r = -ENOMEM;
		else
			memcpy(sub.inl, e.val + BUCKET_HDR, sub.inl_n);
	}
	if (r == 1) {
		free(b->inl);
		*b = sub;
	}
	free(pg.buf);
	return r == 1 ? 0 : r == 0 ? -ENOENT : r;
}

/* The bucket at path, from the root of the tree db's meta names: 0 or -errno (b->inl to free either way). */
static int bucket_at(const struct db *db, struct bolt_path at, struct bucket *b)
{
	int r = 0;

	*b = (struct bucket) { .root = db->root };
	for (size_t i = 0; r == 0 && i < at.depth; i++)
		r = descend(db, b, at.names[i]);
	return r;
}

/* Whether the meta the walk began from is still the newest: a writer committed meanwhile if not. */
static bool still(const struct db *db)
{
	struct db now;

	return meta(db->fd, &now) == 0 && now.txid == db->txid;
}

/* One walk to key's value, copied (NUL-terminated) into *value: 0, -ENOENT, -EAGAIN (a commit meanwhile), -errno. */
static int get_once(int fd, struct bolt_path at, const char *key, char **value, size_t *len)
{
	struct db db;
	struct bucket b = { 0 };
	struct page pg = { 0 };
	struct elem e = { 0 };
	int r = meta(fd, &db);

	if (r == 0)
		r = bucket_at(&db, at, &b);
	if (r == 0)
		r = find(&db, &b, key, strlen(key), &pg, &e);
	/* find() gives 1 only with e filled in: e.val is never NULL then (said for the analyser, which cannot see it). */
	if (r == 0 || (r == 1 && !e.val))
		r = -ENOENT;
	else if (r == 1 && (e.flags & LEAF_BUCKET))
		r = -EISDIR;
	else if (r == 1 && !(*value = malloc(e.vlen + 1)))
		r = -ENOMEM;
	else if (r == 1) {
		memcpy(*value, e.val, e.vlen);
		(*value)[e.vlen] = '\0';
		*len = e.vlen;
		r = still(&db) ? 0 : -EAGAIN;
	}
	if (r < 0 && r != -ENOMEM) {
		free(*value);
		*value = NULL;
	}
	free(pg.buf);
	free(b.inl);
	return r;
}

/*
 * The value of key in the bucket at path of the BoltDB file open at fd, malloc'd and NUL-terminated (its length
 * in *len, which a NUL inside it does not change): 0, -ENOENT where a bucket or the key is not there, -EISDIR where
 * the key is a bucket, -EAGAIN where writers kept committing, or -errno of a file that is not whole BoltDB.
 */
int bolt_get(int fd, struct bolt_path at, const char *key, char **value, size_t *len)
{
	int r = -EAGAIN;

	for (int t = 0; t < TRIES && r == -EAGAIN; t++) {
		*value = NULL;
		r = get_once(fd, at, key, value, len);
	}
	return r;
}

/*
 * Every leaf element under page pg, in key order, given to each; *budget pages at most, and the pages on the way
 * down (held: the bytes of pg's ancestors and pg) HELD_MAX bytes at most: 0 or -errno.
 */
static int each_under(const struct db *db, const struct page *pg, size_t held, unsigned depth, unsigned *budget,
		      bolt_each_fn *each, void *arg)
{
	struct page child;
	struct elem e = { 0 };
	int r = 0;

	if (depth >= DEPTH_MAX)
		return -ELOOP;
	for (unsigned i = 0; r == 0 && i < count_of(pg); i++) {
		if (elem_at(pg, i, &e) < 0)
			return -EINVAL;
		if (u16(pg->p + 8) & PAGE_LEAF) {
			if (!(e.flags & LEAF_BUCKET))
				each((const char *)e.key, e.klen, (const char *)e.val, e.vlen, arg);
			continue;
		}
		if (*budget == 0)
			return -E2BIG;
		--*budget;
		r = page_load(db, e.child, &child);
		if (r == 0 && child.n > HELD_MAX - held)
			r = -E2BIG;
		if (r == 0)
			r = each_under(db, &child, held + child.n, depth + 1, budget, each, arg);
		free(child.buf);
	}
	return r;
}

/*
 * Gives each key of the bucket at path that is not a bucket itself, with its value, to each, in key order. A walk
 * that a writer's commit overtook is walked again: each is then called first with key NULL, to forget what it was
 * given. 0, -ENOENT where a bucket is not there, -EAGAIN, or -errno as bolt_get() says.
 */
int bolt_each(int fd, struct bolt_path at, bolt_each_fn *each, void *arg)
{
	int r = -EAGAIN;

	for (int t = 0; t < TRIES && r == -EAGAIN; t++) {
		struct db db;
		struct bucket b = { 0 };
		struct page pg = { 0 };
		unsigned budget = PAGES_MAX;

		if (t > 0)
			each(NULL, 0, NULL, 0, arg);
		r = meta(fd, &db);
		if (r == 0)
			r = bucket_at(&db, at, &b);
		if (r == 0)
			r = root_page(&db, &b, &pg);
		if (r == 0)
			r = each_under(&db, &pg, pg.n, 0, &budget, each, arg);
		if (r == 0 && !still(&db))
			r = -EAGAIN;
		free(pg.buf);
		free(b.inl);
	}
	return r;
}
