/*
 * check_show.c: what coresinkctl prints as coredumpctl does: sizes as systemd's format_bytes() makes them, whose
 * tenth digit is truncated twice (t-ctl compares the two tools on real crashes, where a size near a boundary made
 * them differ one run in three).
 */
#include "admin/show.h"
#include "unit.h"

START_TEST(test_sizes_as_coredumpctl)
{
	static const struct { uint64_t bytes; const char *shown; } cases[] = {
		{ 0, "0B" }, { 512, "512B" }, { 1023, "1023B" }, { 1024, "1.0K" }, { 1536, "1.5K" }, { 61952, "60.5K" },
		{ 1048575, "1023.9K" }, { 1048576, "1.0M" },
		/* 4.1005 MiB: 4198 KiB, 40 tenths: "4.0M" (t-ctl's crash, stored). */
		{ 4299748, "4.0M" }, { 4304896, "4.1M" }, { 5ULL << 30, "5.0G" }, { (3ULL << 40) + (1ULL << 39), "3.5T" },
		{ 7ULL << 50, "7.0P" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		show_size(cases[i].bytes, buf, sizeof(buf));
		ck_assert_msg(strcmp(buf, cases[i].shown) == 0, "%llu bytes: %s, coredumpctl says %s",
			      (unsigned long long)cases[i].bytes, buf, cases[i].shown);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("show");
	TCase *tc = tcase_create("show");

	tcase_add_test(tc, test_sizes_as_coredumpctl);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
