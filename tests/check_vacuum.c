/* check_vacuum.c: which files are coresink's cores, and oldest-first removal in a real directory. */
#include <sys/file.h>
#include <sys/time.h>

#include <sys/xattr.h>

#include "tidy/vacuum.h"
#include "sandbox.h"
#include "unit.h"

static const struct {
	const char *name;
	bool core;
} names[] = {
	{ "core.sleep.1234.20261121T132000Z", true },
	{ "core.sleep.1234.20261121T132000Z.3", true },
	{ "core._._.._x__y.7.19700101T000000Z", true },
	{ "core.a.b.c.99.20261121T132000Z", true },
	{ "core.--check-config.1.20261121T132000Z", true },
	{ ".coresink.state", false },
	{ ".coresink.123.0", false },
	{ "core", false },
	{ "core.1234", false },
	{ "core..1234.20261121T132000Z", false },
	{ "core.sleep.x1.20261121T132000Z", false },
	{ "core.sleep.1234.20261121X132000Z", false },
	{ "core.sleep.1234.20261121T132000Z.", false },
	{ "core.sleep.1234.20261121T132000Z.3a", false },
	{ "core.sl eep.1234.20261121T132000Z", false },
	{ "notes.txt", false },
	{ "core.sleep.1234.20261121T132000", false },
};

START_TEST(test_names)
{
	ck_assert_msg(vacuum_is_core(names[_i].name) == names[_i].core, "%s", names[_i].name);
}
END_TEST

/* A file of data bytes (a multiple of 4 KiB), then a hole up to size when size is larger. */
static void make_file(int dirfd, const char *name, size_t data, size_t size, time_t mtime)
{
	static char buf[64 * 1024];
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	memset(buf, 'x', sizeof(buf));
	for (size_t done = 0, n; done < data; done += n) {
		n = data - done < sizeof(buf) ? data - done : sizeof(buf);
		ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
	}
	if (size > data)
		ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(futimens(fd, ts), 0);
	close(fd);
}

START_TEST(test_oldest_first)
{
	char dir[256];
	uint64_t total, freed;
	unsigned removed, unsent;
	int dirfd, fd;

	if (geteuid() != 0)
		return;   /* only root-owned files count as cores */
	unit_tmpdir(dir, sizeof(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	/* Counted by what they take on disk: a's 1 MiB has 4 KiB of data and a hole. */
	make_file(dirfd, "core.a.1.20261121T130000Z", 4096, 1 << 20, 3000);
	make_file(dirfd, "core.b.2.20261121T130000Z", 8192, 0, 1000);   /* the oldest */
	make_file(dirfd, "core.c.3.20261121T130000Z", 16384, 0, 2000);
	make_file(dirfd, "keep-me.txt", 65536, 0, 10);                  /* older still, but not a core */
	make_file(dirfd, ".coresink.state", 4096, 0, 10);
	ck_assert_int_eq(vacuum_total(dirfd, &total), 0);
	ck_assert_uint_eq(total, 28672);
	/* c still to be uploaded: its loss is counted. */
	fd = openat(dirfd, "core.c.3.20261121T130000Z", O_RDONLY);
	ck_assert_int_eq(fsetxattr(fd, UPLOAD_XATTR, "pending 1 0", 11, 0), 0);
	close(fd);
	/* 10000 bytes needed: the oldest (8 KiB) is not enough, the next (16 KiB) is. */
	ck_assert_int_eq(vacuum_oldest(dirfd, 10000, NULL, 0, NULL, &freed, &removed, &unsent), 0);
	ck_assert_uint_eq(freed, 24576);
	ck_assert_uint_eq(removed, 2);
	ck_assert_uint_eq(unsent, 1);
	ck_assert_int_eq(faccessat(dirfd, "core.a.1.20261121T130000Z", F_OK, 0), 0);
	ck_assert_int_eq(faccessat(dirfd, "keep-me.txt", F_OK, 0), 0);
	ck_assert_int_eq(faccessat(dirfd, ".coresink.state", F_OK, 0), 0);
	/* Asking for more than there is removes every core and nothing else. */
	ck_assert_int_eq(vacuum_oldest(dirfd, 1 << 30, NULL, 0, NULL, &freed, &removed, &unsent), 0);
	ck_assert_uint_eq(removed, 1);
	ck_assert_uint_eq(unsent, 0);
	ck_assert_int_eq(vacuum_total(dirfd, &total), 0);
	ck_assert_uint_eq(total, 0);
	close(dirfd);
	unit_rmtree(dir);
}
END_TEST

/*
 * What holds a core is its handler's record (the held inodes), never a reader: a core held in the ledger stays,
 * and one a reader has open and flocked goes, its blocks freed at once though the reader still holds it.
 */
START_TEST(test_held_and_readers)
{
	char dir[256];
	uint64_t held[1], freed;
	unsigned removed, unsent;
	struct stat st;
	int dirfd, reader;

	if (geteuid() != 0)
		return;
	unit_tmpdir(dir, sizeof(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	make_file(dirfd, "core.a.1.20261121T130000Z", 8 << 20, 0, 1000);   /* the oldest, held by its handler */
	make_file(dirfd, "core.b.2.20261121T130000Z", 8 << 20, 0, 2000);   /* held open and locked by a reader */
	make_file(dirfd, "core.c.3.20261121T130000Z", 4096, 0, 3000);
	ck_assert_int_eq(fstatat(dirfd, "core.a.1.20261121T130000Z", &st, 0), 0);
	held[0] = st.st_ino;
	reader = openat(dirfd, "core.b.2.20261121T130000Z", O_RDONLY);
	ck_assert_int_ge(reader, 0);
	ck_assert_int_eq(flock(reader, LOCK_SH), 0);
	ck_assert_int_eq(vacuum_oldest(dirfd, 1 << 20, held, 1, NULL, &freed, &removed, &unsent), 0);
	ck_assert_uint_eq(removed, 1);
	ck_assert_uint_eq(freed, 8 << 20);
	ck_assert_int_eq(faccessat(dirfd, "core.a.1.20261121T130000Z", F_OK, 0), 0);
	ck_assert_int_ne(faccessat(dirfd, "core.b.2.20261121T130000Z", F_OK, 0), 0);
	/* The reader still has its fd, and the blocks are free: the file was emptied before it was unlinked. */
	ck_assert_int_eq(fstat(reader, &st), 0);
	ck_assert_int_eq(st.st_blocks, 0);
	ck_assert_int_eq(st.st_nlink, 0);
	close(reader);
	close(dirfd);
	unit_rmtree(dir);
}
END_TEST

START_TEST(test_not_root_owned_ignored)
{
	char dir[256];
	uint64_t total;
	int dirfd;

	if (geteuid() != 0)
		return;
	unit_tmpdir(dir, sizeof(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	make_file(dirfd, "core.a.1.20261121T130000Z", 4096, 0, 3000);
	ck_assert_int_eq(fchownat(dirfd, "core.a.1.20261121T130000Z", 65534, 65534, 0), 0);
	ck_assert_int_eq(symlinkat("/etc/passwd", dirfd, "core.b.2.20261121T130000Z"), 0);
	ck_assert_int_eq(vacuum_total(dirfd, &total), 0);
	ck_assert_uint_eq(total, 0);
	close(dirfd);
	unit_rmtree(dir);
}
END_TEST

/* Whose cores make room: a user past their share of MaxUse makes it from their own alone, never from another's. */
START_TEST(test_user_share)
{
	static const struct { const char *name; const char *uid; time_t mtime; } cores[] = {
		{ "core.a.1.20261121T130000Z", "1001", 1000 },   /* Alice's, the oldest */
		{ "core.m.2.20261121T130000Z", "1002", 2000 },   /* Mallory's */
		{ "core.m.3.20261121T130000Z", "1002", 3000 },
	};
	struct vacuum_share mallory = { .uid = 1002, .bytes = 4096 }, alice = { .uid = 1001, .bytes = 1 << 20 };
	char dir[256];
	uint64_t freed;
	unsigned removed, unsent;
	int dirfd, fd;

	if (geteuid() != 0)
		return;
	unit_tmpdir(dir, sizeof(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	for (size_t i = 0; i < sizeof(cores) / sizeof(cores[0]); i++) {
		make_file(dirfd, cores[i].name, 8192, 0, cores[i].mtime);
		fd = openat(dirfd, cores[i].name, O_RDONLY);
		if (fsetxattr(fd, "user.coredump.uid", cores[i].uid, strlen(cores[i].uid), 0) < 0) {
			close(fd), close(dirfd);
			unit_rmtree(dir);
			fprintf(stderr, "vacuum: no user xattrs in %s: the share not checked\n", dir);
			return;
		}
		close(fd);
	}
	/* Mallory holds 16 KiB, past her 4 KiB: her crash takes her oldest, not Alice's older core. */
	ck_assert_int_eq(vacuum_oldest(dirfd, 4096, NULL, 0, &mallory, &freed, &removed, &unsent), 0);
	ck_assert_uint_eq(removed, 1);
	ck_assert_int_eq(faccessat(dirfd, "core.a.1.20261121T130000Z", F_OK, 0), 0);
	ck_assert_int_ne(faccessat(dirfd, "core.m.2.20261121T130000Z", F_OK, 0), 0);
	/* Alice, within hers, makes room as before: the oldest of all. */
	ck_assert_int_eq(vacuum_oldest(dirfd, 4096, NULL, 0, &alice, &freed, &removed, &unsent), 0);
	ck_assert_uint_eq(removed, 1);
	ck_assert_int_ne(faccessat(dirfd, "core.a.1.20261121T130000Z", F_OK, 0), 0);
	ck_assert_int_eq(faccessat(dirfd, "core.m.3.20261121T130000Z", F_OK, 0), 0);
	close(dirfd);
	unit_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("vacuum");
	TCase *tc = tcase_create("vacuum");

	tcase_add_loop_test(tc, test_names, 0, (int)(sizeof(names) / sizeof(names[0])));
	tcase_add_test(tc, test_oldest_first);
	tcase_add_test(tc, test_not_root_owned_ignored);
	tcase_add_test(tc, test_held_and_readers);
	tcase_add_test(tc, test_user_share);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
