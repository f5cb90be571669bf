/* check_ratelimit.c: the crash-rate windows: an executable's, a user's, all. */
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
	ck_assert_uint_ne(rate_key(RATE_EXE, "/usr/bin/a"), rate_key(RATE_EXE, "/usr/bin/b"));
	ck_assert_uint_eq(rate_key(RATE_EXE, "/usr/bin/a"), rate_key(RATE_EXE, "/usr/bin/a"));
	ck_assert_uint_ne(rate_key(RATE_EXE, ""), 0);
	/* A process named as a user's window (its comm, where it has no exe) is not that window. */
	ck_assert_uint_ne(rate_key(RATE_EXE, "1000"), rate_key(RATE_USER, "1000"));
}
END_TEST

START_TEST(test_decide)
{
	const struct rate_config rc = { .interval = 60, .burst = 2, .global_burst = 3 };
	struct rate_entry a = { .key = 1 }, b = { .key = 2 }, all = { .key = 0 };
	struct rate_verdict v;

	ck_assert(rate_decide(&a, NULL, &all, 100, &rc).allowed);
	ck_assert(rate_decide(&a, NULL, &all, 100, &rc).allowed);
	v = rate_decide(&a, NULL, &all, 100, &rc);
	ck_assert(!v.allowed);
	ck_assert_str_eq(v.by, "executable");
	/* a's loop did not use up the global budget: b gets the third global slot. */
	ck_assert(rate_decide(&b, NULL, &all, 101, &rc).allowed);
	v = rate_decide(&b, NULL, &all, 101, &rc);
	ck_assert(!v.allowed);
	ck_assert_str_eq(v.by, "global");
	ck_assert_uint_eq(b.suppressed, 1);
	/* Next window: b is stored and reports its suppressed crash and the global one; the counts restart. */
	v = rate_decide(&b, NULL, &all, 200, &rc);
	ck_assert(v.allowed);
	ck_assert_uint_eq(v.suppressed_exe, 1);
	ck_assert_uint_eq(v.suppressed_all, 1);
	ck_assert_uint_eq(b.suppressed, 0);
	ck_assert_uint_eq(all.suppressed, 0);
	v = rate_decide(&a, NULL, &all, 200, &rc);
	ck_assert_uint_eq(v.suppressed_exe, 1);
}
END_TEST

/* One user's crash loops are limited first: the rest of the global budget stays for the others. */
START_TEST(test_user_share)
{
	const struct rate_config rc = { .interval = 60, .burst = 5, .global_burst = 20, .user_burst = 10 };
	struct rate_entry exe[20], mallory = { .key = 10 }, alice = { .key = 11 }, aexe = { .key = 12 }, all = { .key = 0 };
	struct rate_verdict v;
	unsigned stored = 0;

	/* Mallory: 20 programs, each crashing twice, within the minute. */
	for (int i = 0; i < 20; i++) {
		exe[i] = (struct rate_entry) { .key = 100 + (uint64_t)i };
		stored += rate_decide(&exe[i], &mallory, &all, 100, &rc).allowed;
		stored += rate_decide(&exe[i], &mallory, &all, 101, &rc).allowed;
	}
	ck_assert_uint_eq(stored, 10);
	v = rate_decide(&exe[0], &mallory, &all, 102, &rc);
	ck_assert_str_eq(v.by, "user");
	/* Alice's crashes are stored: the global window counted only Mallory's ten. */
	for (int i = 0; i < 5; i++)
		ck_assert(rate_decide(&aexe, &alice, &all, 103, &rc).allowed);
	ck_assert_uint_eq(all.count, 15);
	/* No global limit: no share of it to keep, and no user window either. */
	const struct rate_config open = { .interval = 60, .burst = 0, .global_burst = 0, .user_burst = 10 };
	struct rate_entry e = { .key = 13 }, u = { .key = 14 }, a = { .key = 0 };

	for (int i = 0; i < 30; i++)
		ck_assert(rate_decide(&e, &u, &a, 200, &open).allowed);
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
	tcase_add_test(tc, test_user_share);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
