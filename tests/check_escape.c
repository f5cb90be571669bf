/* check_escape.c: text from a crashing process, escaped for the journal: the cases, and the cut at a buffer's end. */
#include "base.h"
#include "unit.h"

static const struct {
	const char *in;
	unsigned flags;
	const char *out;
} cases[] = {
	{ "crasher", ESCAPE_BACKSLASH, "crasher" },
	{ "../\xff\n--x", ESCAPE_BACKSLASH, "../\\xff\\n--x" },
	{ "a\tb\x01" "c\x7f", ESCAPE_BACKSLASH, "a\\tb\\x01c\\x7f" },
	{ "x\nPRIORITY=7", ESCAPE_BACKSLASH, "x\\nPRIORITY=7" },
	{ "X=1", ESCAPE_BACKSLASH, "X=1" },
	/* A backslash is escaped in one-line fields, so that "\xff" typed by the process is not the byte 0xff. */
	{ "\\xff", ESCAPE_BACKSLASH, "\\\\xff" },
	{ "\\xff", 0, "\\xff" },
	/* Valid UTF-8 stays, C1 controls (U+0085) do not, nor do overlong forms, surrogates or truncated sequences. */
	{ "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x92\xa5", ESCAPE_BACKSLASH, "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x92\xa5" },
	{ "\xc2\x85", ESCAPE_BACKSLASH, "\\xc2\\x85" },
	{ "\xc0\xaf", ESCAPE_BACKSLASH, "\\xc0\\xaf" },
	{ "\xed\xa0\x80", ESCAPE_BACKSLASH, "\\xed\\xa0\\x80" },
	{ "\xe2\x9c", ESCAPE_BACKSLASH, "\\xe2\\x9c" },
	{ "\xf4\x90\x80\x80", ESCAPE_BACKSLASH, "\\xf4\\x90\\x80\\x80" },
	/* Multi-line fields keep their lines and tabs; the rest is escaped alike. */
	{ "Name:\tx\x1b\nState:\tZ\n", ESCAPE_MULTILINE, "Name:\tx\\x1b\nState:\tZ\n" },
	{ "", ESCAPE_BACKSLASH, "" },
};

START_TEST(test_cases)
{
	char *e = escape_dup(cases[_i].in, cases[_i].flags);

	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e, cases[_i].out);
	free(e);
}
END_TEST

/* A buffer too small gets a whole-escape prefix and the full length back, as snprintf does. */
START_TEST(test_cut)
{
	char buf[8];
	size_t n = escape_text(buf, sizeof(buf), "ab\xff\xff\xff", ESCAPE_BACKSLASH);

	ck_assert_uint_eq(n, 2 + 3 * 4);
	ck_assert_str_eq(buf, "ab\\xff");
	ck_assert_uint_eq(escape_text(buf, 1, "abc", 0), 3);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* The kernel's " (deleted)" cut from a path's length, and nothing else. */
START_TEST(test_undeleted)
{
	ck_assert_uint_eq(path_undeleted("/usr/bin/x (deleted)"), strlen("/usr/bin/x"));
	ck_assert_uint_eq(path_undeleted("/usr/bin/x"), strlen("/usr/bin/x"));
	ck_assert_uint_eq(path_undeleted(" (deleted)"), strlen(" (deleted)"));
	ck_assert_uint_eq(path_undeleted("/a (deleted) b"), strlen("/a (deleted) b"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("escape");

	tcase_add_loop_test(tc, test_cases, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_undeleted);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
