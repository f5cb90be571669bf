/* check_store.c: the core directory and atomic publication, on the real file system. */
#include <dirent.h>

#include "store.h"
#include "unit.h"

static char dir[256], cores[512];

static void setup(void)
{
	unit_tmpdir(dir, sizeof(dir));
	snprintf(cores, sizeof(cores), "%s/cores", dir);
}

static void teardown(void)
{
	unit_rmtree(dir);
}

START_TEST(test_publish)
{
	struct store_file f;
	char name[128], path[1024];
	struct stat st;
	int dirfd = store_open_dir(cores);

	if (geteuid() != 0)
		return;   /* store_open_dir requires a root-owned directory */
	ck_assert_int_ge(dirfd, 0);
	ck_assert_int_eq(stat(cores, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	ck_assert_int_eq(store_create(dirfd, 0640, &f), 0);
	ck_assert_int_eq(write(f.fd, "core", 4), 4);
	/* Not visible under any name while being written. */
	ck_assert_int_eq(unit_entries(cores), 0);
	ck_assert_int_eq(store_publish(&f, "a/b", 42, 0, false, false, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "core.a_b.42.19700101T000000Z");
	snprintf(path, sizeof(path), "%s/%s", cores, name);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_uint_eq(st.st_uid, 0);
	ck_assert_uint_eq(st.st_gid, 0);
	ck_assert_int_eq(st.st_size, 4);
	ck_assert_int_eq(unit_entries(cores), 1);
	close(dirfd);
}
END_TEST

START_TEST(test_clash_gets_suffix)
{
	struct store_file f;
	char name[128], path[1024];
	int dirfd = store_open_dir(cores);

	if (geteuid() != 0)
		return;
	ck_assert_int_ge(dirfd, 0);
	/* A file (even a symlink planted by someone) already holds the name: it is not replaced or followed. */
	snprintf(path, sizeof(path), "%s/core.x.1.19700101T000000Z", cores);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	ck_assert_int_eq(store_create(dirfd, 0600, &f), 0);
	ck_assert_int_eq(store_publish(&f, "x", 1, 0, false, false, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "core.x.1.19700101T000000Z.1");
	ck_assert_int_eq(unit_entries(cores), 2);
	close(dirfd);
}
END_TEST

START_TEST(test_discard_leaves_nothing)
{
	struct store_file f;
	int dirfd = store_open_dir(cores);

	if (geteuid() != 0)
		return;
	ck_assert_int_ge(dirfd, 0);
	ck_assert_int_eq(store_create(dirfd, 0600, &f), 0);
	ck_assert_int_eq(write(f.fd, "partial", 7), 7);
	store_discard(&f);
	ck_assert_int_eq(unit_entries(cores), 0);
	close(dirfd);
}
END_TEST

START_TEST(test_unsafe_directories_refused)
{
	char link[600], open_dir[600];

	if (geteuid() != 0)
		return;
	snprintf(link, sizeof(link), "%s/link", dir);
	ck_assert_int_eq(symlink("/tmp", link), 0);
	ck_assert_int_eq(store_open_dir(link), -ENOTDIR);
	snprintf(open_dir, sizeof(open_dir), "%s/open", dir);
	ck_assert_int_eq(mkdir(open_dir, 0755), 0);
	ck_assert_int_eq(chmod(open_dir, 0777), 0);
	ck_assert_int_eq(store_open_dir(open_dir), -EPERM);
	ck_assert_int_eq(chmod(open_dir, 0755), 0);
	ck_assert_int_eq(chown(open_dir, 65534, 0), 0);
	ck_assert_int_eq(store_open_dir(open_dir), -EPERM);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	if (geteuid() != 0)
		fprintf(stderr, "check_store: not root, the store tests are skipped\n");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_publish);
	tcase_add_test(tc, test_clash_gets_suffix);
	tcase_add_test(tc, test_discard_leaves_nothing);
	tcase_add_test(tc, test_unsafe_directories_refused);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
