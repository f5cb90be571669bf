/* check_pkgnote.c: the ELF package note's JSON: what is taken, what is refused, and how it is written back. */
#include "analyse/pkgnote.h"
#include "unit.h"

START_TEST(test_fedora_note)
{
	static const char note[] = "{\"type\":\"rpm\",\"name\":\"systemd\",\"version\":\"252.4-598.fc38\","
				   "\"architecture\":\"x86_64\",\"osCpe\":\"cpe:/o:fedoraproject:fedora:38\"}\0\0";
	struct pkgnote p;

	ck_assert_int_eq(pkgnote_parse(note, sizeof(note) - 1, &p), 0);
	ck_assert_int_eq(p.n, 5);
	ck_assert_str_eq(pkgnote_get(&p, "name"), "systemd");
	ck_assert_str_eq(pkgnote_get(&p, "version"), "252.4-598.fc38");
	ck_assert_ptr_null(pkgnote_get(&p, "debugInfoUrl"));
}
END_TEST

START_TEST(test_escapes)
{
	static const char note[] = " { \"name\" : \"a\\\"b\\\\c\\u00e9\\/\" , \"version\":\"1\" } ";
	struct pkgnote p;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_int_eq(pkgnote_parse(note, strlen(note), &p), 0);
	ck_assert_str_eq(pkgnote_get(&p, "name"), "a\"b\\c\xc3\xa9/");
	f = open_memstream(&out, &len);
	pkgnote_json(f, "/usr/bin/x", &p, "abcd");
	fclose(f);
	ck_assert_str_eq(out, "\"/usr/bin/x\":{\"buildId\":\"abcd\",\"name\":\"a\\\"b\\\\c\xc3\xa9/\",\"version\":\"1\"}");
	free(out);
}
END_TEST

/* Hostile notes: each is no package note at all. */
static const char *const refused[] = {
	"",
	"[]",
	"{\"name\":\"x\"",
	"{\"name\":\"x\"} trailing",
	"{\"name\":{\"nested\":\"x\"}}",
	"{\"name\":1}",
	"{\"name\":\"line\\nbreak\"}",
	"{\"name\":\"\x01\"}",
	"{\"name\":\"\xff\"}",
	"{\"name\":\"\\ud800\"}",
	"{\"name\":\"\\u0000\"}",
	"{\"name\":\"\\q\"}",
	"{\"name\":\"\\u12\"}",
	"{\"name\" \"x\"}",
	"{\"name\":\"x\",}",
};

START_TEST(test_refused)
{
	struct pkgnote p;

	ck_assert_int_lt(pkgnote_parse(refused[_i], strlen(refused[_i]), &p), 0);
}
END_TEST

START_TEST(test_bounds)
{
	char note[4096], value[PKGNOTE_VALUE + 8];
	struct pkgnote p;
	size_t n = 0;

	/* One pair too many. */
	n += (size_t)snprintf(note + n, sizeof(note) - n, "{");
	for (int i = 0; i <= PKGNOTE_PAIRS; i++)
		n += (size_t)snprintf(note + n, sizeof(note) - n, "%s\"k%d\":\"v\"", i ? "," : "", i);
	snprintf(note + n, sizeof(note) - n, "}");
	ck_assert_int_eq(pkgnote_parse(note, strlen(note), &p), -E2BIG);
	/* A value too long. */
	memset(value, 'v', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';
	snprintf(note, sizeof(note), "{\"name\":\"%s\"}", value);
	ck_assert_int_eq(pkgnote_parse(note, strlen(note), &p), -E2BIG);
	/* An empty object is a note without pairs. */
	ck_assert_int_eq(pkgnote_parse("{}", 2, &p), 0);
	ck_assert_int_eq(p.n, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pkgnote");
	TCase *t = tcase_create("core");

	tcase_add_test(t, test_fedora_note);
	tcase_add_test(t, test_escapes);
	tcase_add_loop_test(t, test_refused, 0, sizeof(refused) / sizeof(refused[0]));
	tcase_add_test(t, test_bounds);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(suite)
