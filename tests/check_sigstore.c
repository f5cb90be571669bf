/*
 * check_sigstore.c: what is kept of each crash signature in a real directory: the counts and the first time, the
 * first MaxCoresPerSignature cores of a window kept and the next not, a new window, the bounded table, a file
 * put in its place that is not root's, and two signatures of the same keys counted as one.
 */
#include <sys/stat.h>

#include "tidy/sigstore.h"
#include "unit.h"

static char dir[256];
static int dirfd_ = -1;

static void setup(void)
{
	unit_tmpdir(dir, sizeof(dir));
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
}

static void teardown(void)
{
	close(dirfd_);
	unit_rmtree(dir);
}

START_TEST(test_counts_and_first_seen)
{
	struct sig_seen s;

	ck_assert_int_eq(sigstore_note(dirfd_, "0123456789abcdef", "", 1000, true, 0, 86400, &s), 0);
	ck_assert_uint_eq(s.count, 1);
	ck_assert_uint_eq(s.first, 1000);
	ck_assert(s.keep);
	ck_assert_int_eq(sigstore_note(dirfd_, "0123456789abcdef", "", 1005, true, 0, 86400, &s), 0);
	ck_assert_uint_eq(s.count, 2);
	ck_assert_uint_eq(s.first, 1000);
	ck_assert_int_eq(sigstore_note(dirfd_, "fedcba9876543210", "", 1006, true, 0, 86400, &s), 0);
	ck_assert_uint_eq(s.count, 1);
	ck_assert_uint_eq(s.first, 1006);
}
END_TEST

/* MaxCoresPerSignature=2: two cores kept, the third not; crashes without a core do not count against it. */
START_TEST(test_first_cores_kept)
{
	struct sig_seen s;

	ck_assert_int_eq(sigstore_note(dirfd_, "0123456789abcdef", "", 1000, false, 2, 3600, &s), 0);
	ck_assert(s.keep);
	ck_assert_int_eq(sigstore_note(dirfd_, "0123456789abcdef", "", 1001, true, 2, 3600, &s), 0);
	ck_assert(s.keep);
	ck_assert_int_eq(sigstore_note(dirfd_, "0123456789abcdef", "", 1002, true, 2, 3600, &s), 0);
	ck_assert(s.keep);
	ck_assert_uint_eq(s.kept, 2);
	ck_assert_int_eq(sigstore_note(dirfd_, "0123456789abcdef", "", 1003, true, 2, 3600, &s), 0);
	ck_assert(!s.keep);
	ck_assert_uint_eq(s.count, 4);
	/* Another bug of the same program is not held by it. */
	ck_assert_int_eq(sigstore_note(dirfd_, "1111111111111111", "", 1003, true, 2, 3600, &s), 0);
	ck_assert(s.keep);
	/* A new window: kept again. */
	ck_assert_int_eq(sigstore_note(dirfd_, "0123456789abcdef", "", 1000 + 3600, true, 2, 3600, &s), 0);
	ck_assert(s.keep);
	ck_assert_uint_eq(s.kept, 1);
	ck_assert_uint_eq(s.first, 1000);
}
END_TEST

/* Past SIGSTORE_MAX signatures, the one seen longest ago makes room. */
START_TEST(test_table_bounded)
{
	struct sig_seen s;
	char hex[17];
	int fd = openat(dirfd_, SIGSTORE_FILE, O_CREAT | O_WRONLY, 0600);
	FILE *f = fdopen(fd, "w");

	ck_assert_ptr_nonnull(f);
	/* A full table, the signature 0...07 seen longest ago (at 5). */
	for (unsigned i = 0; i < SIGSTORE_MAX; i++)
		fprintf(f, "sig %016x 1 %u %u 0 %u\n", i, 10000 + i, i == 7 ? 5 : 10000 + i, 10000 + i);
	fprintf(f, "end\n");
	fclose(f);
	ck_assert_int_eq(sigstore_note(dirfd_, "ffffffffffffffff", "", 20000, true, 0, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 1);
	ck_assert_int_eq(sigstore_note(dirfd_, "0000000000000008", "", 20001, true, 0, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 2);
	ck_assert_int_eq(sigstore_note(dirfd_, "ffffffffffffffff", "", 20002, true, 0, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 2);
	/* The stalest was forgotten: seen anew. */
	snprintf(hex, sizeof(hex), "%016x", 7);
	ck_assert_int_eq(sigstore_note(dirfd_, hex, "", 20003, true, 0, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 1);
}
END_TEST

/* A file in its place that is not root's is refused (no count, the core kept); a link is not followed. */
START_TEST(test_not_roots_refused)
{
	struct sig_seen s;
	int fd;

	if (geteuid() != 0)
		return;
	fd = openat(dirfd_, SIGSTORE_FILE, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchown(fd, 65534, 65534), 0);
	close(fd);
	ck_assert_int_eq(sigstore_note(dirfd_, "0123456789abcdef", "", 1000, true, 1, 3600, &s), -EPERM);
	ck_assert(s.keep);
	ck_assert_int_eq(unlinkat(dirfd_, SIGSTORE_FILE, 0), 0);
	ck_assert_int_eq(symlinkat("/etc/passwd", dirfd_, SIGSTORE_FILE), 0);
	ck_assert_int_lt(sigstore_note(dirfd_, "0123456789abcdef", "", 1000, true, 1, 3600, &s), 0);
}
END_TEST

/* The same keys (one build, more debug info the second time): one count, one window, under the newer signature. */
START_TEST(test_keys_join)
{
	struct sig_seen s;
	char text[512];
	int fd;
	ssize_t n;

	ck_assert_int_eq(sigstore_note(dirfd_, "aaaaaaaaaaaaaaaa", "1111111111111111", 1000, true, 2, 3600, &s), 0);
	ck_assert_str_eq(s.joined, "");
	ck_assert_int_eq(sigstore_note(dirfd_, "bbbbbbbbbbbbbbbb", "1111111111111111", 1001, true, 2, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 2);
	ck_assert_uint_eq(s.first, 1000);
	ck_assert_str_eq(s.joined, "aaaaaaaaaaaaaaaa");
	/* Its third core in the window is not kept: both signatures held the first two. */
	ck_assert_int_eq(sigstore_note(dirfd_, "bbbbbbbbbbbbbbbb", "1111111111111111", 1002, true, 2, 3600, &s), 0);
	ck_assert(!s.keep);
	ck_assert_uint_eq(s.count, 3);
	/* Rebuilt, debug info at hand: the names match, new keys are taken. */
	ck_assert_int_eq(sigstore_note(dirfd_, "bbbbbbbbbbbbbbbb", "2222222222222222", 1003, false, 2, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 4);
	/* That build without its debug info: joined by the new keys. */
	ck_assert_int_eq(sigstore_note(dirfd_, "cccccccccccccccc", "2222222222222222", 1004, false, 2, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 5);
	/* No keys never join; another bug of other keys is its own. */
	ck_assert_int_eq(sigstore_note(dirfd_, "dddddddddddddddd", "", 1005, false, 2, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 1);
	ck_assert_int_eq(sigstore_note(dirfd_, "eeeeeeeeeeeeeeee", "3333333333333333", 1006, false, 2, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 1);
	/* A line of version 1 (no keys) still reads, and its signature still counts. */
	fd = openat(dirfd_, SIGSTORE_FILE, O_RDONLY);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	text[n] = '\0';
	ck_assert_ptr_nonnull(strstr(text, "sig cccccccccccccccc 5 1000 1004 2 1000 2222222222222222\n"));
	ck_assert_ptr_nonnull(strstr(text, "sig dddddddddddddddd 1 1005 1005 0 1005\n"));
	ck_assert_int_eq(sigstore_note(dirfd_, "dddddddddddddddd", "", 1007, false, 2, 3600, &s), 0);
	ck_assert_uint_eq(s.count, 2);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sigstore");
	TCase *tc = tcase_create("sigstore");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_counts_and_first_seen);
	tcase_add_test(tc, test_first_cores_kept);
	tcase_add_test(tc, test_table_bounded);
	tcase_add_test(tc, test_not_roots_refused);
	tcase_add_test(tc, test_keys_join);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
