/* check_space.c: the free-space policy, on a table of plain numbers. */
#include "unit.h"
#include "space.h"

#define K 1024ULL
#define M (1024ULL * K)
#define G (1024ULL * M)

static const struct size_spec bytes_16m = { 16 * M, false, UINT64_MAX };
static const struct size_spec pct_15_cap = { 15, true, 4 * G };
static const struct size_spec pct_50 = { 50, true, UINT64_MAX };
static const struct size_spec zero = { 0, false, UINT64_MAX };

static const struct {
	struct space_fs fs;
	const struct size_spec *keep;
	uint64_t want, expect;
} budget_cases[] = {
	/* Plenty of room: the whole chunk. */
	{ { 10 * G, 100 * G, 4 * K }, &bytes_16m, 16 * M, 16 * M },
	/* Room for part of a chunk: whole blocks up to reserve + 32 blocks of margin. */
	{ { 20 * M, 100 * G, 4 * K }, &bytes_16m, 16 * M, 4 * M - 128 * K },
	/* At the reserve + margin exactly: nothing. */
	{ { 16 * M + 128 * K, 100 * G, 4 * K }, &bytes_16m, 16 * M, 0 },
	/* Below the reserve: nothing. */
	{ { 1 * M, 100 * G, 4 * K }, &bytes_16m, 16 * M, 0 },
	/* Percent of the file system: 50% of 1 GiB reserved, 600 MiB free. */
	{ { 600 * M, 1 * G, 4 * K }, &pct_50, 16 * M, 16 * M },
	{ { 520 * M, 1 * G, 4 * K }, &pct_50, 16 * M, 8 * M - 128 * K },
	/* The default's cap: 15% of 100 TiB would be 15 TiB, capped at 4 GiB. */
	{ { 5 * G, 100 * 1024 * G, 4 * K }, &pct_15_cap, 16 * M, 16 * M },
	/* No reserve, no room but the margin. */
	{ { 128 * K, 1 * G, 4 * K }, &zero, 16 * M, 0 },
	/* Block rounding with 64 KiB blocks. */
	{ { 3 * M + 100 * K, 1 * G, 64 * K }, &zero, 16 * M, 3 * M + 64 * K - 2 * M },
	/* A zero block size (broken statfs) still gives a sane answer. */
	{ { 10 * G, 100 * G, 0 }, &bytes_16m, 16 * M, 16 * M },
	/* A reserve near UINT64_MAX does not overflow. */
	{ { 10 * G, 100 * G, 4 * K }, &(const struct size_spec){ UINT64_MAX - 1, false, UINT64_MAX }, 16 * M, 0 },
};

START_TEST(test_budget_table)
{
	uint64_t got = space_budget(&budget_cases[_i].fs, budget_cases[_i].keep, budget_cases[_i].want);

	ck_assert_msg(got == budget_cases[_i].expect, "case %d: got %llu, expected %llu", _i,
		      (unsigned long long)got, (unsigned long long)budget_cases[_i].expect);
}
END_TEST

START_TEST(test_resolve)
{
	ck_assert_uint_eq(space_resolve(&bytes_16m, 1 * G), 16 * M);
	ck_assert_uint_eq(space_resolve(&pct_50, 1 * G), 512 * M);
	ck_assert_uint_eq(space_resolve(&pct_15_cap, 10 * G), 10 * G / 100 * 15 + (10 * G % 100) * 15 / 100);
	ck_assert_uint_eq(space_resolve(&pct_15_cap, 1000 * G), 4 * G);
	/* No overflow for a huge file system and 100%. */
	ck_assert_uint_eq(space_resolve(&(const struct size_spec){ 100, true, UINT64_MAX }, UINT64_MAX), UINT64_MAX);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("space");
	TCase *tc = tcase_create("policy");

	tcase_add_loop_test(tc, test_budget_table, 0, (int)(sizeof(budget_cases) / sizeof(budget_cases[0])));
	tcase_add_test(tc, test_resolve);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
