/* check_parse.c: the strict parsers for numbers, sizes, modes, signatures and times. */
#include "admin.h"
#include "base.h"
#include "unit.h"

START_TEST(test_u64)
{
	uint64_t v;

	ck_assert_int_eq(parse_u64("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(parse_u64("18446744073709551615", &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(parse_u64("18446744073709551616", &v), -ERANGE);
	ck_assert_int_eq(parse_u64("-1", &v), -EINVAL);
	ck_assert_int_eq(parse_u64(" 1", &v), -EINVAL);
	ck_assert_int_eq(parse_u64("1 ", &v), -EINVAL);
	ck_assert_int_eq(parse_u64("12x", &v), -EINVAL);
	ck_assert_int_eq(parse_u64("", &v), -EINVAL);
	ck_assert_int_eq(parse_u64(NULL, &v), -EINVAL);
}
END_TEST

START_TEST(test_bytes)
{
	uint64_t v;

	ck_assert_int_eq(parse_bytes("16M", &v), 0);
	ck_assert_uint_eq(v, 16ULL << 20);
	ck_assert_int_eq(parse_bytes("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(parse_bytes("1G", &v), 0);
	ck_assert_uint_eq(v, 1ULL << 30);
	ck_assert_int_eq(parse_bytes("2TiB", &v), 0);
	ck_assert_uint_eq(v, 2ULL << 40);
	ck_assert_int_eq(parse_bytes("8KB", &v), 0);
	ck_assert_uint_eq(v, 8192);
	ck_assert_int_eq(parse_bytes("16X", &v), -EINVAL);
	ck_assert_int_eq(parse_bytes("16 M", &v), -EINVAL);
	ck_assert_int_eq(parse_bytes("M", &v), -EINVAL);
	ck_assert_int_eq(parse_bytes("1.5G", &v), -EINVAL);
	ck_assert_int_eq(parse_bytes("-1M", &v), -EINVAL);
	ck_assert_int_eq(parse_bytes("99999999999999999999T", &v), -ERANGE);
	ck_assert_int_eq(parse_bytes("16777216T", &v), -ERANGE);
}
END_TEST

START_TEST(test_size_spec)
{
	struct size_spec s;

	ck_assert_int_eq(parse_size_spec("15%", &s), 0);
	ck_assert(s.percent);
	ck_assert_uint_eq(s.value, 15);
	ck_assert_uint_eq(s.cap, UINT64_MAX);
	ck_assert_int_eq(parse_size_spec("100%", &s), 0);
	ck_assert_int_eq(parse_size_spec("101%", &s), -ERANGE);
	ck_assert_int_eq(parse_size_spec("%", &s), -EINVAL);
	ck_assert_int_eq(parse_size_spec("1G", &s), 0);
	ck_assert(!s.percent);
	ck_assert_uint_eq(s.value, 1ULL << 30);
	ck_assert_int_eq(parse_size_spec("x%", &s), -EINVAL);
}
END_TEST

START_TEST(test_mode)
{
	mode_t m;

	ck_assert_int_eq(parse_mode("0640", &m), 0);
	ck_assert_uint_eq(m, 0640);
	ck_assert_int_eq(parse_mode("600", &m), 0);
	ck_assert_uint_eq(m, 0600);
	ck_assert_int_eq(parse_mode("0755", &m), -ERANGE);   /* exec bits */
	ck_assert_int_eq(parse_mode("4600", &m), -ERANGE);   /* setuid */
	ck_assert_int_eq(parse_mode("0040", &m), -ERANGE);   /* owner cannot read */
	ck_assert_int_eq(parse_mode("0648", &m), -EINVAL);
	ck_assert_int_eq(parse_mode("rw", &m), -EINVAL);
}
END_TEST

/* A signature's form, exactly: no blanks, sign, "0x", capitals or other lengths. */
START_TEST(test_hex64)
{
	uint64_t v = 0;

	ck_assert_int_eq(parse_hex64("00000000deadbeef", &v), 0);
	ck_assert_uint_eq(v, 0xdeadbeef);
	ck_assert_int_eq(parse_hex64("\r\n\t\v\f00000000001", &v), -EINVAL);
	ck_assert_int_eq(parse_hex64(" 0000000deadbeef", &v), -EINVAL);
	ck_assert_int_eq(parse_hex64("-000000000000001", &v), -EINVAL);
	ck_assert_int_eq(parse_hex64("0x00000000000001", &v), -EINVAL);
	ck_assert_int_eq(parse_hex64("00000000DEADBEEF", &v), -EINVAL);
	ck_assert_int_eq(parse_hex64("00000000deadbeef0", &v), -EINVAL);
	ck_assert_int_eq(parse_hex64("0000000000000000", &v), -EINVAL);
	ck_assert_int_eq(parse_hex64("", &v), -EINVAL);
}
END_TEST

/* Times before 1970 are refused, never wrapped into the far future. */
START_TEST(test_time)
{
	const uint64_t now = 1795800000ULL * 1000000;
	uint64_t v = 0;

	setenv("TZ", "UTC", 1);
	tzset();
	ck_assert_int_eq(entries_parse_time("1900-01-01", now, &v), -EINVAL);
	ck_assert_int_eq(entries_parse_time("1969-12-31", now, &v), -EINVAL);
	ck_assert_int_eq(entries_parse_time("1969-12-31 23:59:59", now, &v), -EINVAL);
	ck_assert_int_eq(entries_parse_time("1970-01-01", now, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(entries_parse_time("2026-11-28 12:00", now, &v), 0);
	ck_assert_uint_eq(v, 1795867200ULL * 1000000);
	ck_assert_int_eq(entries_parse_time("-100y", now, &v), -EINVAL);
	ck_assert_int_eq(entries_parse_time("@-1", now, &v), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("parsers");

	tcase_add_test(tc, test_u64);
	tcase_add_test(tc, test_bytes);
	tcase_add_test(tc, test_size_spec);
	tcase_add_test(tc, test_mode);
	tcase_add_test(tc, test_hex64);
	tcase_add_test(tc, test_time);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
