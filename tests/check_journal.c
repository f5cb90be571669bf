/*
 * check_journal.c: the kernel-log fallback record. The real journald and /dev/kmsg are exercised end to end
 * (tests/e2e); here the fallback writes to a file so its exact bytes can be read back.
 */
#include <syslog.h>

#include "unit.h"
#include "journal.h"

static char dir[256], kmsg[512];

static void setup(void)
{
	unit_tmpdir(dir, sizeof(dir));
	snprintf(kmsg, sizeof(kmsg), "%s/kmsg", dir);
	journal_test_redirect("/nonexistent/socket", kmsg);
	close(open(kmsg, O_CREAT | O_WRONLY, 0600));
}

static void teardown(void)
{
	journal_test_redirect(NULL, NULL);
	unit_rmtree(dir);
}

static void read_back(char *buf, size_t len)
{
	int fd = open(kmsg, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, len - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	close(fd);
}

START_TEST(test_fallback_to_kmsg)
{
	struct fields f;
	char buf[2048], expect[128];

	fields_init(&f, LOG_CRIT);
	fields_add(&f, "MESSAGE=Process %d (%s) dumped core", 7, "evil\nMESSAGE=forged\x1b");
	fields_add(&f, "COREDUMP_PID=7");
	ck_assert_int_eq(journal_send(&f), 1);
	fields_free(&f);
	read_back(buf, sizeof(buf));
	snprintf(expect, sizeof(expect), "<2>coresink[%d]: Process 7 (evil\\nMESSAGE=forged\\x1b) dumped core\n",
		 (int)getpid());
	ck_assert_str_eq(buf, expect);
}
END_TEST

START_TEST(test_fields_bounded)
{
	struct fields f;

	fields_init(&f, LOG_INFO);
	for (int i = 0; i < 2 * FIELDS_MAX; i++)
		fields_add(&f, "X%d=%d", i, i);
	ck_assert_uint_eq(f.n, FIELDS_MAX);
	ck_assert_ptr_null(f.message);
	fields_free(&f);
	ck_assert_uint_eq(f.n, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("journal");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fallback_to_kmsg);
	tcase_add_test(tc, test_fields_bounded);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
