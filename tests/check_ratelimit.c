/* check_ratelimit.c: the crash-rate window. */
#include "ledger/ratelimit.h"
#include "unit.h"

START_TEST(test_window)
{
	struct rate_entry e = { .key = 1 };

	/* burst 3 per 60 s: three stored, then suppressed and counted. */
	ck_assert(rate_allow(&e, 1000, 60, 3));
	ck_assert(rate_allow(&e, 1001, 60, 3));
	ck_assert(rate_allow(&e, 1002, 60, 3));
	ck_assert(!rate_allow(&e, 1003, 60, 3));
	ck_assert(!rate_allow(&e, 1059, 60, 3));
	ck_assert_uint_eq(e.suppressed, 2);
	/* The window turns over after the interval; the suppressed count stays for the caller to report. */
	ck_assert(rate_allow(&e, 1060, 60, 3));
	ck_assert_uint_eq(e.count, 1);
	ck_assert_uint_eq(e.suppressed, 2);
}
END_TEST

START_TEST(test_clock_backwards_and_off)
{
	struct rate_entry e = { .key = 1 };

	ck_assert(rate_allow(&e, 1000, 60, 1));
	ck_assert(!rate_allow(&e, 1000, 60, 1));
	ck_assert(rate_allow(&e, 10, 60, 1));   /* the clock went back: a new window */
	for (int i = 0; i < 100; i++)
		ck_assert(rate_allow(&e, 20, 60, 0));   /* burst 0: no limit */
}
END_TEST

START_TEST(test_key)
{
	ck_assert_uint_ne(rate_key("/usr/bin/a"), rate_key("/usr/bin/b"));
	ck_assert_uint_eq(rate_key("/usr/bin/a"), rate_key("/usr/bin/a"));
	ck_assert_uint_ne(rate_key(""), 0);
}
END_TEST

START_TEST(test_decide)
{
	const struct rate_config rc = { .interval = 60, .burst = 2, .global_burst = 3 };
	struct rate_entry a = { .key = 1 }, b = { .key = 2 }, all = { .key = 0 };
	struct rate_verdict v;

	ck_assert(rate_decide(&a, &all, 100, &rc).allowed);
	ck_assert(rate_decide(&a, &all, 100, &rc).allowed);
	v = rate_decide(&a, &all, 100, &rc);
	ck_assert(!v.allowed);
	ck_assert_str_eq(v.by, "executable");
	/* a's loop did not use up the global budget: b gets the third global slot. */
	ck_assert(rate_decide(&b, &all, 101, &rc).allowed);
	v = rate_decide(&b, &all, 101, &rc);
	ck_assert(!v.allowed);
	ck_assert_str_eq(v.by, "global");
	ck_assert_uint_eq(b.suppressed, 1);
	/* Next window: b is stored and reports its suppressed crash and the global one; the counts restart. */
	v = rate_decide(&b, &all, 200, &rc);
	ck_assert(v.allowed);
	ck_assert_uint_eq(v.suppressed_exe, 1);
	ck_assert_uint_eq(v.suppressed_all, 1);
	ck_assert_uint_eq(b.suppressed, 0);
	ck_assert_uint_eq(all.suppressed, 0);
	v = rate_decide(&a, &all, 200, &rc);
	ck_assert_uint_eq(v.suppressed_exe, 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ratelimit");
	TCase *tc = tcase_create("ratelimit");

	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_clock_backwards_and_off);
	tcase_add_test(tc, test_key);
	tcase_add_test(tc, test_decide);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
