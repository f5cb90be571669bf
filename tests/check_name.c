/* check_name.c: stored file names from hostile comm values. */
#include "unit.h"
#include "name.h"

static const struct {
	const char *in, *out;
} cases[] = {
	{ "bash", "bash" },
	{ "my prog", "my_prog" },
	{ "../../etc/passwd", "_._.._etc_passwd" },
	{ "..", "_." },
	{ ".hidden", "_hidden" },
	{ "a/b", "a_b" },
	{ "new\nline", "new_line" },
	{ "\x1b[31mred", "__31mred" },
	{ "\xc3\xa9t\xc3\xa9", "__t__" },
	{ "", "unknown" },
	{ "abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz012345" },
	{ "ok-name_1.2+3", "ok-name_1.2+3" },
};

START_TEST(test_sanitize_table)
{
	char out[NAME_COMM_MAX + 1];

	name_sanitize(cases[_i].in, out, sizeof(out));
	ck_assert_str_eq(out, cases[_i].out);
}
END_TEST

START_TEST(test_format)
{
	char buf[NAME_MAX_LEN];

	ck_assert_int_eq(name_format(buf, sizeof(buf), "sleep", 1234, 1763731200, 0), 0);
	ck_assert_str_eq(buf, "core.sleep.1234.20251121T132000Z");
	ck_assert_int_eq(name_format(buf, sizeof(buf), "a/b", 7, 0, 2), 0);
	ck_assert_str_eq(buf, "core.a_b.7.19700101T000000Z.2");
	ck_assert_ptr_null(strchr(buf, '/'));
	ck_assert_int_eq(name_format(buf, 10, "sleep", 1, 0, 0), -ENAMETOOLONG);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("name");
	TCase *tc = tcase_create("name");

	tcase_add_loop_test(tc, test_sanitize_table, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_format);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
