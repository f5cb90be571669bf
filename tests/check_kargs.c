/* check_kargs.c: the kernel's expanded core_pattern arguments, good and hostile. */
#include "intake.h"
#include "unit.h"

START_TEST(test_full)
{
	char *argv[] = { "1234", "1000", "100", "11", "1763731200", "18446744073709551615", "host", "my prog", "1",
			 "3" };
	struct kargs k;
	struct diag d = { 0 };

	ck_assert_int_eq(kargs_parse(10, argv, &k, &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert_int_eq(k.pid, 1234);
	ck_assert_uint_eq(k.uid, 1000);
	ck_assert_uint_eq(k.gid, 100);
	ck_assert_int_eq(k.signal, 11);
	ck_assert_uint_eq(k.time, 1763731200);
	ck_assert_uint_eq(k.rlimit, UINT64_MAX);
	ck_assert_str_eq(k.hostname, "host");
	ck_assert_str_eq(k.comm, "my prog");
	ck_assert_int_eq(k.dumpmode, 1);
	ck_assert_int_eq(k.pidfd, 3);
}
END_TEST

START_TEST(test_tid)
{
	char *argv[] = { "1234", "0", "0", "6", "0", "0", "h", "c", "1", "", "1240" };
	struct kargs k;
	struct diag d = { 0 };

	/* %I after an empty %F (kernel < 6.16); a pattern of an older coresink ends before it. */
	ck_assert_int_eq(kargs_parse(11, argv, &k, &d), 0);
	ck_assert_int_eq(k.tid, 1240);
	ck_assert_int_eq(k.pidfd, -1);
	ck_assert_int_eq(k.dumpmode, SUID_DUMP_USER);
	ck_assert_int_eq(kargs_parse(10, argv, &k, &d), 0);
	ck_assert_int_eq(k.tid, 0);
	argv[10] = "-3";
	ck_assert_int_eq(kargs_parse(11, argv, &k, &d), -EINVAL);
	ck_assert_int_eq(k.tid, 0);
	ck_assert_int_eq(k.dumpmode, SUID_DUMP_ROOT);
	ck_assert_int_eq(diag_count(&d), 1);
}
END_TEST

START_TEST(test_no_pidfd)
{
	char *argv[] = { "1", "0", "0", "6", "0", "0", "h", "c", "2", "" };
	struct kargs k;
	struct diag d = { 0 };

	/* %F empty (kernel < 6.16) and %F absent are both fine. */
	ck_assert_int_eq(kargs_parse(10, argv, &k, &d), 0);
	ck_assert_int_eq(k.pidfd, -1);
	ck_assert_int_eq(kargs_parse(9, argv, &k, &d), 0);
	ck_assert_int_eq(k.pidfd, -1);
	ck_assert_int_eq(diag_count(&d), 0);
}
END_TEST

START_TEST(test_bad_numbers)
{
	char *argv[] = { "12x", "-1", "0", "99", "0", "0", "h", "c", "7", "x" };
	struct kargs k;
	struct diag d = { 0 };

	ck_assert_int_eq(kargs_parse(10, argv, &k, &d), -EINVAL);
	ck_assert_int_eq(diag_count(&d), 5);
	ck_assert_uint_eq(k.uid, (uid_t)-1);
	/* A dump mode that cannot be read means root only. */
	ck_assert_int_eq(k.dumpmode, 2);
	ck_assert_int_eq(k.pidfd, -1);
}
END_TEST

START_TEST(test_any_bad_argument_means_root_only)
{
	char *argv[] = { "99999999999999999999", "0", "0", "11", "0", "0", "h", "c", "1", "" };
	struct kargs k;
	struct diag d = { 0 };

	/* Only %P is bad, %d says 1: still root only. */
	ck_assert_int_eq(kargs_parse(10, argv, &k, &d), -EINVAL);
	ck_assert_int_eq(k.dumpmode, 2);
}
END_TEST

START_TEST(test_wrong_count)
{
	char *argv[] = { "1", "2", "3" };
	struct kargs k;
	struct diag d = { 0 };

	ck_assert_int_eq(kargs_parse(3, argv, &k, &d), -EINVAL);
	ck_assert_int_eq(diag_count(&d), 1);
	ck_assert_int_eq(k.dumpmode, 2);
	ck_assert_str_eq(k.comm, "");
}
END_TEST

START_TEST(test_hostile_comm_kept_raw)
{
	char *argv[] = { "1", "0", "0", "11", "0", "0", "h\nMESSAGE=x", "--check-config\n../..", "1", "" };
	struct kargs k;
	struct diag d = { 0 };

	/* Kept byte for byte for the journal (which stores it safely); the file name sanitizes it. */
	ck_assert_int_eq(kargs_parse(10, argv, &k, &d), 0);
	ck_assert_str_eq(k.comm, "--check-config\n../..");
	ck_assert_str_eq(k.hostname, "h\nMESSAGE=x");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kargs");
	TCase *tc = tcase_create("kargs");

	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_no_pidfd);
	tcase_add_test(tc, test_tid);
	tcase_add_test(tc, test_bad_numbers);
	tcase_add_test(tc, test_any_bad_argument_means_root_only);
	tcase_add_test(tc, test_wrong_count);
	tcase_add_test(tc, test_hostile_comm_kept_raw);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
