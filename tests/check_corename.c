/* check_corename.c: stored file names from hostile comm values. */
#include "store.h"
#include "unit.h"

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

	ck_assert_int_eq(name_format(buf, sizeof(buf), "sleep", 1234, 1763731200, 0, false, false), 0);
	ck_assert_str_eq(buf, "core.sleep.1234.20251121T132000Z");
	ck_assert_int_eq(name_format(buf, sizeof(buf), "a/b", 7, 0, 2, false, false), 0);
	ck_assert_str_eq(buf, "core.a_b.7.19700101T000000Z.2");
	ck_assert_ptr_null(strchr(buf, '/'));
	ck_assert_int_eq(name_format(buf, 10, "sleep", 1, 0, 0, false, false), -ENAMETOOLONG);
}
END_TEST

/* name_parse() reads back what name_format() wrote: the sanitized comm, pid, time, clash suffix, .zst, .age. */
START_TEST(test_round_trip)
{
	static const struct { const char *comm; pid_t pid; uint64_t time; unsigned attempt; } in[] = {
		{ "sleep", 1234, 1763731200, 0 },
		{ "a.b.c", 99, 0, 3 },
		{ "../../etc/x", 7, 4102444799, 0 },
		{ "", 1, 1, 1 },
		{ "12345", INT32_MAX, 951782400, 99 },
		{ "abcdefghijklmnopqrstuvwxyz0123456789", 42, 1763731200, 0 },
	};
	char buf[NAME_MAX_LEN], safe[NAME_COMM_MAX + 1];
	struct name_parts p;

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		ck_assert_int_eq(name_format(buf, sizeof(buf), in[i].comm, in[i].pid, in[i].time, in[i].attempt, i % 2,
					     i % 3 == 0), 0);
		ck_assert_msg(name_parse(buf, &p) == 0, "%s", buf);
		name_sanitize(in[i].comm, safe, sizeof(safe));
		ck_assert_str_eq(p.comm, safe);
		ck_assert_int_eq(p.pid, in[i].pid);
		ck_assert_uint_eq(p.time, in[i].time);
		ck_assert_uint_eq(p.attempt, in[i].attempt);
		ck_assert(p.compressed == (i % 2 == 1));
		ck_assert(p.encrypted == (i % 3 == 0));
	}
}
END_TEST

/* Anything name_format() cannot write is not a name. */
static const char *const not_names[] = {
	"core", "core.1234", "core..1234.20261121T132000Z", "core.sleep.x1.20261121T132000Z",
	"core.sleep.1234.20261121X132000Z", "core.sleep.1234.20261121T132000Z.", "core.sleep.1234.20261121T132000Z.0",
	"core.sleep.1234.20261121T132000Z.3a", "core.sl eep.1234.20261121T132000Z", "core.sleep.1234.20261321T132000Z",
	"core.sleep.1234.20261121T132000", "core..hidden.1.20261121T132000Z", "core.sleep.99999999999.20261121T132000Z",
	"core.abcdefghijklmnopqrstuvwxyz0123456.1.20261121T132000Z", "core.sleep.1234.20260230T000000Z",
	"core.sleep.1234.20261121T132000Z.zst.zst", "core.sleep.1234.20261121T132000Z.xz", "core..zst",
	"core.sleep.1234.20261121T132000Z.0.zst", ".zst",
};

START_TEST(test_parse_rejects)
{
	struct name_parts p;

	ck_assert_msg(name_parse(not_names[_i], &p) == -EINVAL, "%s", not_names[_i]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("name");
	TCase *tc = tcase_create("name");

	tcase_add_loop_test(tc, test_sanitize_table, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_round_trip);
	tcase_add_loop_test(tc, test_parse_rejects, 0, (int)(sizeof(not_names) / sizeof(not_names[0])));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
