/* check_space.c: the storage policy, on a table of plain numbers; the room of a file beside the cores, on a tmpfs. */
#include "unit.h"
#include "write/side.h"
#include "write/space.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#define K 1024ULL
#define M (1024ULL * K)
#define G (1024ULL * M)
#define NONE UINT64_MAX

#define BYTES(n) { (n), false, UINT64_MAX }
#define PCT(n) { (n), true, UINT64_MAX }
#define PCT_CAP(n, cap) { (n), true, (cap) }

/* A roomy 100 GiB file system with 10 GiB free and no limit at all, which each row then changes. */
#define FS .avail = 10 * G, .total = 100 * G, .block = 4 * K, .max_core = NONE, .rlimit = NONE, \
	   .keep_free = BYTES(0), .max_use = BYTES(NONE)

static const struct {
	const char *what;
	struct space_in in;
	uint64_t want, expect;
	enum limit which;
} cases[] = {
	{ "no limit binds", { FS }, 16 * M, 16 * M, LIMIT_NONE },
	{ "KeepFree: room for part of a chunk, whole blocks, 64 blocks margin",
	  { FS, .avail = 20 * M, .keep_free = BYTES(16 * M) }, 16 * M, 4 * M - 256 * K, LIMIT_KEEP_FREE },
	{ "KeepFree: exactly at reserve + margin", { FS, .avail = 16 * M + 256 * K, .keep_free = BYTES(16 * M) },
	  16 * M, 0, LIMIT_KEEP_FREE },
	{ "KeepFree: below the reserve", { FS, .avail = 1 * M, .keep_free = BYTES(16 * M) }, 16 * M, 0,
	  LIMIT_KEEP_FREE },
	{ "KeepFree as a percentage", { FS, .avail = 520 * M, .total = 1 * G, .keep_free = PCT(50) }, 16 * M,
	  8 * M - 256 * K, LIMIT_KEEP_FREE },
	{ "KeepFree default capped at 4 GiB on 100 TiB", { FS, .avail = 5 * G, .total = 100 * 1024 * G,
	  .keep_free = PCT_CAP(15, 4 * G) }, 16 * M, 16 * M, LIMIT_NONE },
	{ "64 KiB blocks round down (margin 4 MiB)", { FS, .avail = 5 * M + 100 * K, .total = 1 * G,
	  .block = 64 * K }, 16 * M, 1 * M + 64 * K, LIMIT_KEEP_FREE },
	{ "broken statfs block size 0", { FS, .block = 0 }, 16 * M, 16 * M, LIMIT_NONE },
	{ "huge reserve does not overflow", { FS, .keep_free = BYTES(UINT64_MAX - 1) }, 16 * M, 0,
	  LIMIT_KEEP_FREE },
	{ "MaxUse: room left under the quota", { FS, .used = 50 * M, .written = 10 * M, .held = 10 * M,
	  .max_use = BYTES(64 * M) }, 16 * M, 4 * M, LIMIT_MAX_USE },
	{ "MaxUse counts what a sparse core holds, not its size", { FS, .used = 50 * M, .written = 60 * M,
	  .held = 2 * M, .max_use = BYTES(64 * M) }, 16 * M, 12 * M, LIMIT_MAX_USE },
	{ "KeepFree counts what other captures will still write (no preallocation shows it)",
	  { FS, .avail = 50 * M, .keep_free = BYTES(16 * M), .pending = 20 * M }, 16 * M, 14 * M - 256 * K,
	  LIMIT_KEEP_FREE },
	{ "KeepFree keeps the file system's slack back too (ext4's 8 MiB of preallocation)",
	  { FS, .avail = 50 * M, .keep_free = BYTES(16 * M), .slack = 8 * M }, 32 * M, 26 * M - 256 * K,
	  LIMIT_KEEP_FREE },
	{ "a slack that would overflow saturates", { FS, .slack = UINT64_MAX }, 16 * M, 0, LIMIT_KEEP_FREE },
	{ "MaxUse: already over by others' cores", { FS, .used = 80 * M, .max_use = BYTES(64 * M) }, 16 * M, 0,
	  LIMIT_MAX_USE },
	{ "MaxUse as a percentage: 10% of 100 GiB, 10232 MiB used", { FS, .used = 9 * G + 1016 * M,
	  .max_use = PCT(10) }, 16 * M, 8 * M, LIMIT_MAX_USE },
	{ "MaxCoreSize", { FS, .written = 60 * M, .max_core = 64 * M }, 16 * M, 4 * M, LIMIT_MAX_CORE },
	{ "RLIMIT_CORE 0", { FS, .rlimit = 0 }, 16 * M, 0, LIMIT_RLIMIT },
	{ "RLIMIT_CORE smaller than a chunk", { FS, .rlimit = 1 * M }, 16 * M, 1 * M, LIMIT_RLIMIT },
	{ "RLIMIT_CORE reached", { FS, .written = 1 * M, .rlimit = 1 * M }, 16 * M, 0, LIMIT_RLIMIT },
	{ "the smallest room wins: MaxCoreSize under RLIMIT", { FS, .max_core = 2 * M, .rlimit = 3 * M }, 16 * M,
	  2 * M, LIMIT_MAX_CORE },
	{ "the smallest room wins: KeepFree under MaxUse", { FS, .avail = 17 * M + 256 * K,
	  .keep_free = BYTES(16 * M), .max_use = BYTES(8 * M) }, 16 * M, 1 * M, LIMIT_KEEP_FREE },
	{ "used + held overflow is saturated", { FS, .used = UINT64_MAX - 1, .written = 10, .held = 10,
	  .max_use = BYTES(64 * M) }, 16 * M, 0, LIMIT_MAX_USE },
};

START_TEST(test_budget_table)
{
	enum limit which;
	uint64_t got = space_budget(&cases[_i].in, cases[_i].want, &which);

	ck_assert_msg(got == cases[_i].expect, "%s: got %llu, expected %llu", cases[_i].what,
		      (unsigned long long)got, (unsigned long long)cases[_i].expect);
	ck_assert_msg(which == cases[_i].which, "%s: limit %s, expected %s", cases[_i].what,
		      limit_to_string(which), limit_to_string(cases[_i].which));
}
END_TEST

START_TEST(test_resolve)
{
	const struct size_spec b16 = BYTES(16 * M), p50 = PCT(50), p15 = PCT_CAP(15, 4 * G), p100 = PCT(100);

	ck_assert_uint_eq(space_resolve(&b16, 1 * G), 16 * M);
	ck_assert_uint_eq(space_resolve(&p50, 1 * G), 512 * M);
	ck_assert_uint_eq(space_resolve(&p15, 10 * G), 10 * G / 100 * 15 + (10 * G % 100) * 15 / 100);
	ck_assert_uint_eq(space_resolve(&p15, 1000 * G), 4 * G);
	ck_assert_uint_eq(space_resolve(&p100, UINT64_MAX), UINT64_MAX);
}
END_TEST

/*
 * side_room() on a real file system of known size (a 64 MiB tmpfs, as root): a file beside the cores gets what a
 * capture's chunk would: KeepFree= and the metadata margin (64 blocks) kept back, MaxUse= with what is used, and
 * what other captures have pending.
 */
START_TEST(test_side_room)
{
	char dir[] = "/tmp/check-side.XXXXXX";
	const struct size_spec none = SPACE_UNBOUNDED, zero = BYTES(0), k16 = BYTES(16 * M),
		p25 = PCT(25), p90 = PCT(90), m10 = BYTES(10 * M);
	const uint64_t margin = 64 * 4096;
	struct side_use u = { 0 };
	struct side_space sp;
	enum limit which;
	int fd, f;

	if (geteuid() != 0)
		return;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(mount("tmpfs", dir, "tmpfs", 0, "size=64m"), 0);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(side_space(fd, &p25, &m10, &sp), 0);
	ck_assert_uint_eq(sp.total, 64 * M);
	ck_assert_uint_eq(sp.avail, 64 * M);
	ck_assert_uint_eq(sp.keep_free, 16 * M);
	ck_assert_uint_eq(sp.max_use, 10 * M);
	ck_assert_uint_eq(side_room(fd, &zero, &none, &u, &which), 64 * M - margin);
	ck_assert_uint_eq(side_room(fd, &zero, NULL, &u, &which), 64 * M - margin);
	ck_assert_int_eq(which, LIMIT_KEEP_FREE);
	ck_assert_uint_eq(side_room(fd, &k16, &none, &u, &which), 48 * M - margin);
	u.pending = 8 * M;
	ck_assert_uint_eq(side_room(fd, &k16, &none, &u, &which), 40 * M - margin);
	u = (struct side_use) { .used = 9 * M };
	ck_assert_uint_eq(side_room(fd, &k16, &m10, &u, &which), 1 * M);
	ck_assert_int_eq(which, LIMIT_MAX_USE);
	u.used = 11 * M;
	ck_assert_uint_eq(side_room(fd, &k16, &m10, &u, &which), 0);
	/* What is written counts: 8 MiB more in a file, 8 MiB less room. */
	f = openat(fd, "x", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(f, 0);
	ck_assert_int_eq(fallocate(f, 0, 0, 8 * M), 0);
	u = (struct side_use) { 0 };
	ck_assert_uint_eq(side_room(fd, &k16, &none, &u, &which), 40 * M - margin);
	/* Under KeepFree: none. */
	ck_assert_uint_eq(side_room(fd, &p90, &none, &u, &which), 0);
	ck_assert_int_eq(which, LIMIT_KEEP_FREE);
	(void) close(f);
	(void) close(fd);
	ck_assert_int_eq(umount2(dir, MNT_DETACH), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	/* A file system that cannot be asked gives nothing: nothing is written blind. */
	ck_assert_uint_eq(side_room(-1, &zero, &none, &u, &which), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("space");
	TCase *tc = tcase_create("policy");

	tcase_add_loop_test(tc, test_budget_table, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_side_room);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
