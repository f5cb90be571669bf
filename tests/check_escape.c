/*
 * check_escape.c: text from a crashing process, escaped for the journal: the cases, and the cut at a buffer's end;
 * the one JSON string writer.
 */
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
	/* Text that says what its bytes do not: a right-to-left override, an isolate, a line separator. */
	{ "evil\xe2\x80\xaegpj.exe", ESCAPE_BACKSLASH, "evil\\xe2\\x80\\xaegpj.exe" },
	{ "a\xe2\x81\xa6" "b\xe2\x81\xa9", ESCAPE_BACKSLASH, "a\\xe2\\x81\\xa6" "b\\xe2\\x81\\xa9" },
	{ "one\xe2\x80\xa8two\xe2\x80\xa9", ESCAPE_BACKSLASH, "one\\xe2\\x80\\xa8two\\xe2\\x80\\xa9" },
	{ "\xe2\x80\x8f\xd8\x9c", ESCAPE_BACKSLASH, "\\xe2\\x80\\x8f\\xd8\\x9c" },
	/* A field's NUL, held as C0 80 (record_read), is shown, and what follows it too. */
	{ "/bin/x\xc0\x80/etc/shadow", ESCAPE_BACKSLASH, "/bin/x\\x00/etc/shadow" },
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

/* escape_json() of any bytes: one valid JSON value, and no two inputs alike. */
static char *json(const char *s, size_t n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	escape_json(m, s, n);
	fclose(m);
	return out;
}

START_TEST(test_json)
{
	char *a = json("\xff", 1), *b = json("\\xff", 4), *c = json("a\0b", 3), *d = json("q\"\\\n\xe2\x80\xae", 7),
	     *e = json("x\xc0\x80y", 4), *f = json("", 0);

	ck_assert_str_eq(a, "[255]");
	ck_assert_str_eq(b, "\"\\\\xff\"");
	ck_assert_str_ne(a, b);
	ck_assert_str_eq(c, "\"a\\u0000b\"");
	ck_assert_str_eq(d, "\"q\\\"\\\\\\n\\u202e\"");
	ck_assert_str_eq(e, "\"x\\u0000y\"");
	ck_assert_str_eq(f, "\"\"");
	free(a), free(b), free(c), free(d), free(e), free(f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("escape");

	tcase_add_loop_test(tc, test_cases, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_undeleted);
	tcase_add_test(tc, test_json);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
