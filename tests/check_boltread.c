/*
 * check_boltread.c: the BoltDB reader (base/boltread.c) on files laid out as bbolt lays them out (tests/boltmake.h):
 * a branch page over leaves, buckets inline and on pages of their own, a value over an overflow page, the newer
 * meta page chosen and a torn one passed over, a commit during a walk, and pages a hostile or broken file holds.
 */
#include "base.h"
#include "boltmake.h"
#include "unit.h"

#define PS 512
#define PAGES 8
#define CONFIG "{\"name\":\"web-7\",\"labels\":{\"app\":\"web\"}}"

static unsigned char file[PS * PAGES];
static char big[701];

/*
 * Pages: 0 and 1 meta (txid 2 and 1), 2 the freelist, 3 the root's branch over 4 ("a") and 5 ("pod"); 4 a leaf with
 * a = 1 and the bucket id-registry inline {abc = web}; 5 a leaf with the bucket pod on page 6; 6 and 7 one leaf of
 * two pages: the bucket ff00 inline {config = CONFIG} and ff01 = 700 bytes.
 */
static void sample(void)
{
	unsigned char inl[256], inl2[256];
	size_t n;

	memset(file, 0, sizeof(file));
	memset(big, 'x', 700);
	bm_meta(file, PS, 0, 3, PAGES, 2);
	bm_meta(file, PS, 1, 3, PAGES, 1);
	bm_header(file + 2 * PS, 2, 0x10, 0, 0);
	bm_page(file + 3 * PS, 3, BM_BRANCH, 0,
		(struct bm_elem[]) { { .key = "a", .child = 4 }, { .key = "pod", .child = 5 } }, 2);
	n = bm_bucket(inl, 0, (struct bm_elem[]) { { 0, "abc", "web", 3, 0 } }, 1);
	bm_page(file + 4 * PS, 4, BM_LEAF, 0,
		(struct bm_elem[]) { { 0, "a", "1", 1, 0 }, { BM_BUCKET, "id-registry", inl, n, 0 } }, 2);
	n = bm_bucket(inl, 6, NULL, 0);
	bm_page(file + 5 * PS, 5, BM_LEAF, 0, (struct bm_elem[]) { { BM_BUCKET, "pod", inl, n, 0 } }, 1);
	n = bm_bucket(inl2, 0, (struct bm_elem[]) { { 0, "config", CONFIG, strlen(CONFIG), 0 } }, 1);
	bm_page(file + 6 * PS, 6, BM_LEAF, 1,
		(struct bm_elem[]) { { BM_BUCKET, "ff00", inl2, n, 0 }, { 0, "ff01", big, 700, 0 } }, 2);
}

/* The sample as it is now, in a file of its own: an fd open on it. */
static int as_file(size_t len)
{
	char path[] = "/tmp/check_boltread.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	(void) unlink(path);
	ck_assert_int_eq(write(fd, file, len), (ssize_t)len);
	return fd;
}

/* bolt_get() of key under the buckets of path ("pod/ff00", "" the root): its result, and the value into out (or ""). */
static int get(int fd, const char *path, const char *key, char *out, size_t len)
{
	char copy[256], *save = NULL;
	const char *names[8];
	size_t depth = 0, vlen = 0;
	char *v = NULL;
	int r;

	(void) snprintf(copy, sizeof(copy), "%s", path);
	for (char *n = strtok_r(copy, "/", &save); n && depth < 8; n = strtok_r(NULL, "/", &save))
		names[depth++] = n;
	r = bolt_get(fd, (struct bolt_path) { names, depth }, key, &v, &vlen);
	out[0] = '\0';
	if (r == 0) {
		ck_assert_uint_eq(strlen(v), vlen);
		(void) snprintf(out, len, "%s", v);
	} else {
		ck_assert_ptr_null(v);
	}
	free(v);
	return r;
}

START_TEST(test_reads)
{
	char v[1024];
	int fd;

	sample();
	fd = as_file(sizeof(file));
	ck_assert_int_eq(get(fd, "", "a", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "1");
	ck_assert_int_eq(get(fd, "id-registry", "abc", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "web");
	ck_assert_int_eq(get(fd, "pod/ff00", "config", v, sizeof(v)), 0);
	ck_assert_str_eq(v, CONFIG);
	ck_assert_int_eq(get(fd, "pod", "ff01", v, sizeof(v)), 0);
	ck_assert_str_eq(v, big);
	ck_assert_int_eq(get(fd, "", "zzz", v, sizeof(v)), -ENOENT);
	ck_assert_int_eq(get(fd, "", "0", v, sizeof(v)), -ENOENT);
	ck_assert_int_eq(get(fd, "pod/ff02", "config", v, sizeof(v)), -ENOENT);
	ck_assert_int_eq(get(fd, "", "pod", v, sizeof(v)), -EISDIR);
	/* A key is not a bucket. */
	ck_assert_int_eq(get(fd, "a", "x", v, sizeof(v)), -EINVAL);
	(void) close(fd);
}
END_TEST

START_TEST(test_metas)
{
	char v[64];
	int fd;

	/* The newer meta page wins: meta 1 (txid 3) makes leaf 4 the root, without "pod". */
	sample();
	bm_meta(file, PS, 1, 4, PAGES, 3);
	fd = as_file(sizeof(file));
	ck_assert_int_eq(get(fd, "", "a", v, sizeof(v)), 0);
	ck_assert_int_eq(get(fd, "pod", "ff01", v, sizeof(v)), -ENOENT);
	(void) close(fd);
	/* Torn (its checksum wrong): the other one. */
	file[PS + 16 + 20] ^= 1;
	fd = as_file(sizeof(file));
	ck_assert_int_eq(get(fd, "pod", "ff01", v, sizeof(v)), 0);
	(void) close(fd);
	/* Both torn, or not BoltDB at all, or cut short of its pages. */
	file[16 + 20] ^= 1;
	fd = as_file(sizeof(file));
	ck_assert_int_eq(get(fd, "", "a", v, sizeof(v)), -EINVAL);
	(void) close(fd);
	sample();
	fd = as_file(PS * 6);
	ck_assert_int_eq(get(fd, "", "a", v, sizeof(v)), -EINVAL);
	(void) close(fd);
	fd = as_file(100);
	ck_assert_int_lt(get(fd, "", "a", v, sizeof(v)), 0);
	(void) close(fd);
}
END_TEST

/* One change to the sample, then get of pod/ff01: its result. */
static int hostile(size_t off, const void *bytes, size_t n)
{
	char v[1024];
	int fd, r;

	sample();
	memcpy(file + off, bytes, n);
	fd = as_file(sizeof(file));
	r = get(fd, "pod", "ff01", v, sizeof(v));
	(void) close(fd);
	return r;
}

START_TEST(test_hostile)
{
	uint64_t self = 3, far = 100, other = 9, zero = 0;
	uint32_t pos = 0xffff, overflow = 5, small = 8;
	uint16_t count = 60000;

	ck_assert_int_eq(hostile(0, "", 0), 0);
	/* The branch's child for "pod" is the branch itself: a loop, cut at the depth bound. */
	ck_assert_int_eq(hostile(3 * PS + 16 + 16 + 8, &self, 8), -ELOOP);
	ck_assert_int_eq(hostile(3 * PS + 16 + 16 + 8, &far, 8), -EINVAL);
	ck_assert_int_eq(hostile(3 * PS + 16 + 16 + 8, &zero, 8), -EINVAL);
	/* A key's position outside its page; an element count past it; a page that is not the one named. */
	ck_assert_int_eq(hostile(5 * PS + 16 + 4, &pos, 4), -EINVAL);
	ck_assert_int_eq(hostile(5 * PS + 10, &count, 2), -EINVAL);
	ck_assert_int_eq(hostile(5 * PS, &other, 8), -EINVAL);
	/* Overflow pages past the last page; a bucket's value too short to hold its root. */
	ck_assert_int_eq(hostile(6 * PS + 12, &overflow, 4), -EINVAL);
	ck_assert_int_eq(hostile(5 * PS + 16 + 12, &small, 4), -EINVAL);
	/* A bucket whose root is a meta page (pod's value follows its key, after the header and one element). */
	ck_assert_int_eq(hostile(5 * PS + 16 + 16 + 3, &(uint64_t) { 1 }, 8), -EINVAL);
}
END_TEST

struct seen {
	char keys[256];
	int restarts;
	int commits;            /* commits to make during walks */
	int fd;
};

/* Collects keys; makes a commit (meta 1 with a newer txid) during the walk, s->commits times. */
static void collect(const char *key, size_t klen, const char *value, size_t vlen, void *arg)
{
	struct seen *s = arg;
	static uint64_t txid = 2;

	(void) value;
	(void) vlen;
	if (!key) {
		s->keys[0] = '\0';
		s->restarts++;
		return;
	}
	(void) snprintf(s->keys + strlen(s->keys), sizeof(s->keys) - strlen(s->keys), "%.*s ", (int)klen, key);
	if (s->commits > 0) {
		s->commits--;
		txid++;
		bm_meta(file, PS, (unsigned)(txid & 1), 3, PAGES, txid);
		ck_assert_int_eq(pwrite(s->fd, file, 2 * PS, 0), 2 * PS);
	}
}

START_TEST(test_each)
{
	const char *pod[] = { "pod", "ff00" };
	struct seen s = { .keys = "" };

	sample();
	s.fd = as_file(sizeof(file));
	/* The root: through the branch, leaves' keys that are not buckets. */
	ck_assert_int_eq(bolt_each(s.fd, (struct bolt_path) { NULL, 0 }, collect, &s), 0);
	ck_assert_str_eq(s.keys, "a ");
	s.keys[0] = '\0';
	ck_assert_int_eq(bolt_each(s.fd, (struct bolt_path) { pod, 1 }, collect, &s), 0);
	ck_assert_str_eq(s.keys, "ff01 ");
	s.keys[0] = '\0';
	ck_assert_int_eq(bolt_each(s.fd, (struct bolt_path) { pod, 2 }, collect, &s), 0);
	ck_assert_str_eq(s.keys, "config ");
	/* A commit during the walk: walked again, told first; commits all along: given up. */
	s.keys[0] = '\0';
	s.commits = 1;
	ck_assert_int_eq(bolt_each(s.fd, (struct bolt_path) { pod, 2 }, collect, &s), 0);
	ck_assert_str_eq(s.keys, "config ");
	ck_assert_int_eq(s.restarts, 1);
	s.commits = 100;
	ck_assert_int_eq(bolt_each(s.fd, (struct bolt_path) { pod, 2 }, collect, &s), -EAGAIN);
	ck_assert_int_eq(bolt_each(s.fd, (struct bolt_path) { (const char *[]) { "nope" }, 1 }, collect, &s), -ENOENT);
	(void) close(s.fd);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("boltread");
	TCase *tc = tcase_create("boltread");

	tcase_add_test(tc, test_reads);
	tcase_add_test(tc, test_metas);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_each);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
