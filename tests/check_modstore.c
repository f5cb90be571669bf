/*
 * check_modstore.c: the modules kept beside the cores (KeepModules=), in a real directory: kept once per build-id
 * however many cores need it, where elfutils looks (.build-id/xx/rest), the bytes counted once, a module gone with
 * its last core and not before, the room respected, links of a core removed by another hand dropped, names that
 * could leave the tree refused, a sparse module kept sparse, the module's path noted only where it is plain,
 * and a core never linked to other bytes than its own under a build-id.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "tidy/modstore.h"
#include "unit.h"

static char dir[256];
static int dirfd_ = -1, mod = -1;

#define ID_A "ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12"
#define ID_A_REST "12cd34ef56ab12cd34ef56ab12cd34ef56ab12"
#define ID_B "0011223344556677889900112233445566778899"

static void setup(void)
{
	char buf[8192];

	unit_tmpdir(dir, sizeof(dir));
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
	mod = memfd_create("module", 0);
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(write(mod, buf, sizeof(buf)), sizeof(buf));
}

static void teardown(void)
{
	close(mod);
	close(dirfd_);
	unit_rmtree(dir);
}

static void core(const char *name)
{
	int fd = openat(dirfd_, name, O_CREAT | O_WRONLY, 0600);

	ck_assert_int_ge(fd, 0);
	close(fd);
}

static bool kept(const char *id)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), ".modules/.build-id/%.2s/%s", id, id + 2);
	return fstatat(dirfd_, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_size == 8192;
}

START_TEST(test_once_per_build_id)
{
	uint64_t added = 0, freed = 0;

	core("core.a.1.20261126T000000Z");
	core("core.a.2.20261126T000001Z");
	ck_assert_int_eq(modstore_keep(dirfd_, "core.a.1.20261126T000000Z", ID_A, NULL, mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), 0);
	ck_assert_uint_ge(added, 8192);
	ck_assert(kept(ID_A));
	/* The second core of the same build: linked, nothing added. */
	ck_assert_int_eq(modstore_keep(dirfd_, "core.a.2.20261126T000001Z", ID_A, NULL, mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), 0);
	ck_assert_uint_eq(added, 0);
	ck_assert_uint_ge(modstore_total(dirfd_), 8192);
	ck_assert_uint_lt(modstore_total(dirfd_), 2 * 8192);
	/* The first core goes: the module stays for the second. */
	modstore_release(dirfd_, "core.a.1.20261126T000000Z", &freed);
	ck_assert_uint_eq(freed, 0);
	ck_assert(kept(ID_A));
	/* The last goes: so does the module. */
	modstore_release(dirfd_, "core.a.2.20261126T000001Z", &freed);
	ck_assert_uint_ge(freed, 8192);
	ck_assert(!kept(ID_A));
	ck_assert_uint_eq(modstore_total(dirfd_), 0);
}
END_TEST

/* Past the room: not copied. */
START_TEST(test_room)
{
	uint64_t added = 0;

	core("core.b.1.20261126T000000Z");
	ck_assert_int_eq(modstore_keep(dirfd_, "core.b.1.20261126T000000Z", ID_B, NULL, mod, 8192, &(uint64_t){ 4096 }, 0, &added), -EFBIG);
	ck_assert(!kept(ID_B));
}
END_TEST

/* A core removed by systemd-tmpfiles or rm: its links are dropped when the total is next counted. */
START_TEST(test_orphans_dropped)
{
	uint64_t added = 0;

	core("core.c.1.20261126T000000Z");
	ck_assert_int_eq(modstore_keep(dirfd_, "core.c.1.20261126T000000Z", ID_B, NULL, mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), 0);
	ck_assert_int_eq(unlinkat(dirfd_, "core.c.1.20261126T000000Z", 0), 0);
	ck_assert_uint_eq(modstore_total(dirfd_), 0);
	ck_assert(!kept(ID_B));
}
END_TEST

/* Names that are no build-id, or no core's name, never make a path. */
START_TEST(test_names_refused)
{
	uint64_t added = 0;

	ck_assert_int_eq(modstore_keep(dirfd_, "core.d", "../../etc", NULL, mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), -EINVAL);
	ck_assert_int_eq(modstore_keep(dirfd_, "core.d", "AB12CD", NULL, mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), -EINVAL);
	ck_assert_int_eq(modstore_keep(dirfd_, "../core.d", ID_A, NULL, mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), -EINVAL);
	ck_assert_int_eq(modstore_keep(dirfd_, ".cores", ID_A, NULL, mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), -EINVAL);
}
END_TEST

/* A link planted in the tree's place is not followed. */
START_TEST(test_no_link_followed)
{
	uint64_t added = 0;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(symlinkat("/tmp", dirfd_, ".modules"), 0);
	ck_assert_int_lt(modstore_keep(dirfd_, "core.e.1.20261126T000000Z", ID_A, NULL, mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), 0);
}
END_TEST

static void each_path(void *ctx, const char *file, const char *path)
{
	snprintf(ctx, 300, "%s=%s", file, path ? path : "(none)");
}

/* The module's path in the process, for a debugger: " (deleted)" cut; one that could leave a root is not kept. */
START_TEST(test_paths)
{
	static const char *const unfit[] = { "/a/../etc/shadow (deleted)", "relative/lib.so", "/a//b", "/a/./b",
					     "/a/b\\012c", "/a/b/..", "/" };
	char seen[300];
	uint64_t added = 0;

	core("core.g.1.20261126T000000Z");
	ck_assert_int_eq(modstore_keep(dirfd_, "core.g.1.20261126T000000Z", ID_A, "/opt/app/lib/libx.so (deleted)",
				       mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), 0);
	ck_assert_int_eq(modstore_each(dirfd_, "core.g.1.20261126T000000Z", each_path, seen), 0);
	ck_assert_str_eq(seen, ".modules/.build-id/ab/" ID_A_REST "=/opt/app/lib/libx.so");
	for (size_t i = 0; i < sizeof(unfit) / sizeof(unfit[0]); i++) {
		char core_name[64];

		snprintf(core_name, sizeof(core_name), "core.h.%zu.20261126T000000Z", i + 1);
		core(core_name);
		ck_assert_int_eq(modstore_keep(dirfd_, core_name, ID_B, unfit[i], mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), 0);
		ck_assert_int_eq(modstore_each(dirfd_, core_name, each_path, seen), 0);
		ck_assert_msg(strstr(seen, "=(none)"), "%s: %s", unfit[i], seen);
	}
	ck_assert_int_eq(modstore_each(dirfd_, "../x", each_path, seen), -EINVAL);
}
END_TEST

static void count_kept(void *ctx, const char *file, const char *path)
{
	(void) file;
	(void) path;
	(*(unsigned *)ctx)++;
}

/* Another file that says it has a kept module's build-id (anyone can write libc's into theirs): not linked. */
START_TEST(test_other_bytes_refused)
{
	char buf[8192];
	uint64_t added = 0;
	unsigned n = 0;
	int other = memfd_create("other", 0), shorter = memfd_create("shorter", 0);

	memset(buf, 'y', sizeof(buf));
	ck_assert_int_eq(write(other, buf, sizeof(buf)), sizeof(buf));
	ck_assert_int_eq(write(shorter, buf, 4096), 4096);
	core("core.i.1.20261126T000000Z");
	core("core.i.2.20261126T000001Z");
	ck_assert_int_eq(modstore_keep(dirfd_, "core.i.1.20261126T000000Z", ID_A, NULL, mod, 8192, &(uint64_t){ 1 << 20 }, 0, &added), 0);
	ck_assert_int_eq(modstore_keep(dirfd_, "core.i.2.20261126T000001Z", ID_A, NULL, other, 8192, &(uint64_t){ 1 << 20 }, 0, &added),
			 -EEXIST);
	ck_assert_int_eq(modstore_keep(dirfd_, "core.i.2.20261126T000001Z", ID_A, NULL, shorter, 4096, &(uint64_t){ 1 << 20 }, 0,
				       &added), -EEXIST);
	ck_assert_uint_eq(added, 0);
	(void) modstore_each(dirfd_, "core.i.2.20261126T000001Z", count_kept, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert(kept(ID_A));
	close(other);
	close(shorter);
}
END_TEST

/* A sparse module (8 MiB, two pages of data) kept sparse: the same bytes, a few blocks. */
START_TEST(test_holes_kept)
{
	char a[4096], b[4096], back[4096], path[512];
	uint64_t added = 0;
	struct stat st;
	int sparse = openat(dirfd_, "sparse", O_CREAT | O_RDWR, 0600), fd;

	if (geteuid() != 0)
		return;
	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	ck_assert_int_ge(sparse, 0);
	ck_assert_int_eq(pwrite(sparse, a, sizeof(a), 0), sizeof(a));
	ck_assert_int_eq(pwrite(sparse, b, sizeof(b), 6 << 20), sizeof(b));
	ck_assert_int_eq(ftruncate(sparse, 8 << 20), 0);
	core("core.f.1.20261126T000000Z");
	ck_assert_int_eq(modstore_keep(dirfd_, "core.f.1.20261126T000000Z", ID_A, NULL, sparse, 8 << 20, &(uint64_t){ 16 << 20 }, 0,
				       &added), 0);
	snprintf(path, sizeof(path), ".modules/.build-id/%.2s/%s", ID_A, ID_A + 2);
	fd = openat(dirfd_, path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_size, 8 << 20);
	ck_assert_uint_lt((uint64_t)st.st_blocks * 512, 1 << 20);
	ck_assert_uint_eq(added, (uint64_t)st.st_blocks * 512);
	ck_assert_int_eq(pread(fd, back, sizeof(back), 0), sizeof(back));
	ck_assert_int_eq(memcmp(back, a, sizeof(a)), 0);
	ck_assert_int_eq(pread(fd, back, sizeof(back), 6 << 20), sizeof(back));
	ck_assert_int_eq(memcmp(back, b, sizeof(b)), 0);
	ck_assert_int_eq(pread(fd, back, sizeof(back), 3 << 20), sizeof(back));
	memset(a, 0, sizeof(a));
	ck_assert_int_eq(memcmp(back, a, sizeof(a)), 0);
	close(fd);
	close(sparse);
}
END_TEST

/*
 * The check of a kept module against another file with its build-id reads the kept file's data only, and charges it
 * to the crash's budget: a 1 GiB sparse module with 64 KiB of data costs 64 KiB to check again, not 1 GiB; a file of
 * the same size with data where the kept one has a hole is refused without reading it; a budget below the data
 * refuses the check.
 */
START_TEST(test_impostor_cost)
{
	char a[65536];
	uint64_t added = 0, budget;
	const uint64_t size = 1ULL << 30;
	int sparse = openat(dirfd_, "sparse", O_CREAT | O_RDWR, 0600), dense = openat(dirfd_, "dense", O_CREAT | O_RDWR,
										      0600);

	memset(a, 'a', sizeof(a));
	ck_assert_int_ge(sparse, 0);
	ck_assert_int_ge(dense, 0);
	ck_assert_int_eq(pwrite(sparse, a, sizeof(a), 512 << 20), sizeof(a));
	ck_assert_int_eq(ftruncate(sparse, (off_t)size), 0);
	core("core.j.1.20261126T000000Z");
	ck_assert_int_eq(modstore_keep(dirfd_, "core.j.1.20261126T000000Z", ID_A, NULL, sparse, size,
				       &(uint64_t){ 2 * size }, 0, &added), 0);
	/* Kept already: the same bytes cost their data to check. */
	budget = 1 << 20;
	core("core.j.2.20261126T000001Z");
	ck_assert_int_eq(modstore_keep(dirfd_, "core.j.2.20261126T000001Z", ID_A, NULL, sparse, size, &budget, 0, &added),
			 0);
	ck_assert_uint_eq(added, 0);
	ck_assert_uint_le((1 << 20) - budget, 2 * sizeof(a));
	ck_assert_uint_ge((1 << 20) - budget, sizeof(a));
	/* Too little budget for that: refused. */
	budget = 4096;
	ck_assert_int_eq(modstore_keep(dirfd_, "core.j.2.20261126T000001Z", ID_A, NULL, sparse, size, &budget, 0, &added),
			 -EFBIG);
	/* Same size, same data where the kept one has data, and data (zeros) in its hole: another file. */
	ck_assert_int_eq(pwrite(dense, a, sizeof(a), 512 << 20), sizeof(a));
	memset(a, 0, sizeof(a));
	ck_assert_int_eq(pwrite(dense, a, sizeof(a), 0), sizeof(a));
	ck_assert_int_eq(ftruncate(dense, (off_t)size), 0);
	budget = 1 << 20;
	core("core.j.3.20261126T000002Z");
	ck_assert_int_eq(modstore_keep(dirfd_, "core.j.3.20261126T000002Z", ID_A, NULL, dense, size, &budget, 0, &added),
			 -EEXIST);
	ck_assert_uint_eq(budget, 1 << 20);
	close(sparse);
	close(dense);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("modstore");
	TCase *tc = tcase_create("modstore");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_once_per_build_id);
	tcase_add_test(tc, test_room);
	tcase_add_test(tc, test_orphans_dropped);
	tcase_add_test(tc, test_names_refused);
	tcase_add_test(tc, test_no_link_followed);
	tcase_add_test(tc, test_holes_kept);
	tcase_add_test(tc, test_paths);
	tcase_add_test(tc, test_other_bytes_refused);
	tcase_add_test(tc, test_impostor_cost);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
