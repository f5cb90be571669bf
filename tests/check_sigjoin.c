/*
 * check_sigjoin.c: signatures joined by the keys their crashes share: directly, transitively (a build seen stripped
 * and named, then a rebuild seen both ways), never without a shared key; each set's root its least index.
 */
#include "analyse/sigjoin.h"
#include "unit.h"

START_TEST(test_joins)
{
	/* Groups 0-5: 0 and 3 share keys 7; 3 and 5 share keys 9 (so 0, 3, 5 are one bug); 1 and 2 nothing. */
	struct sigjoin_ref refs[] = { { 9, 5 }, { 7, 3 }, { 8, 1 }, { 7, 0 }, { 9, 3 }, { 6, 2 }, { 5, 4 }, { 5, 4 },
				      { 5, 99 } };
	size_t root[6];

	sigjoin(refs, sizeof(refs) / sizeof(refs[0]), root, 6);
	ck_assert_uint_eq(root[0], 0);
	ck_assert_uint_eq(root[3], 0);
	ck_assert_uint_eq(root[5], 0);
	ck_assert_uint_eq(root[1], 1);
	ck_assert_uint_eq(root[2], 2);
	/* A group that shares keys only with itself, or with one out of range, stays its own. */
	ck_assert_uint_eq(root[4], 4);
}
END_TEST

START_TEST(test_nothing)
{
	size_t root[2];

	sigjoin(NULL, 0, root, 2);
	ck_assert_uint_eq(root[0], 0);
	ck_assert_uint_eq(root[1], 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sigjoin");
	TCase *tc = tcase_create("sigjoin");

	tcase_add_test(tc, test_joins);
	tcase_add_test(tc, test_nothing);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
