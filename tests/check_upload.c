/*
 * check_upload.c: ExecUpload='s words and specifiers: quotes and escapes, every specifier, a hostile comm that must
 * stay one safe word, bad commands refused; the retry backoff. Real uploads: t-upload (rclone to a WebDAV server).
 */
#include "report.h"
#include "sandbox.h"
#include "unit.h"

static const struct upload_names names = {
	.file = "core.x.42.20261123T000000Z", .dir = "/var/lib/coresink", .comm = "a b;$(id)\"'/..",
	.host = "db1", .pid = 42, .uid = 1000, .time = 1795400000,
};

static int split(const char *cmd, char **argv)
{
	static char buf[4096];

	return upload_argv(cmd, &names, buf, sizeof(buf), argv);
}

START_TEST(test_words)
{
	char *argv[UPLOAD_ARGS_MAX];

	ck_assert_int_eq(split("/usr/bin/rclone rcat dav:cores/%H/%f", argv), 3);
	ck_assert_str_eq(argv[2], "dav:cores/db1/core.x.42.20261123T000000Z");
	ck_assert_ptr_null(argv[3]);
	ck_assert_int_eq(split("  /bin/x \"two words\"  \"a \\\"q\\\" \\\\\" %P-%u-%t %d %% ", argv), 6);
	ck_assert_str_eq(argv[1], "two words");
	ck_assert_str_eq(argv[2], "a \"q\" \\");
	ck_assert_str_eq(argv[3], "42-1000-1795400000");
	ck_assert_str_eq(argv[4], "/var/lib/coresink");
	ck_assert_str_eq(argv[5], "%");
	/* The process's name: one word of safe bytes, whatever it holds. */
	ck_assert_int_eq(split("/bin/x %e \"%e\" x%ey", argv), 4);
	ck_assert_str_eq(argv[1], "a_b___id____..");
	ck_assert_str_eq(argv[2], argv[1]);
	ck_assert_str_eq(argv[3], "xa_b___id____..y");
}
END_TEST

START_TEST(test_bad)
{
	char *argv[UPLOAD_ARGS_MAX];

	ck_assert_int_eq(split("relative/path x", argv), -EINVAL);
	ck_assert_int_eq(split("", argv), -EINVAL);
	ck_assert_int_eq(split("/bin/x %s", argv), -EINVAL);        /* not a specifier */
	ck_assert_int_eq(split("/bin/x 100%", argv), -EINVAL);
	ck_assert_int_eq(split("/bin/x \"open", argv), -EINVAL);
	{
		char many[1024] = "/bin/x";

		for (int i = 0; i < UPLOAD_ARGS_MAX; i++)
			strcat(many, " a");
		ck_assert_int_eq(split(many, argv), -E2BIG);
	}
}
END_TEST

START_TEST(test_backoff)
{
	ck_assert_uint_eq(upload_backoff(1), 60);
	ck_assert_uint_eq(upload_backoff(2), 120);
	ck_assert_uint_eq(upload_backoff(5), 960);
	ck_assert_uint_eq(upload_backoff(40), 86400);
}
END_TEST

/* The fields as JSON (quotes, backslashes, control bytes escaped) and as the environment (one-line fields only). */
START_TEST(test_json_env)
{
	const char *extra[] = { "HOME=/", NULL };
	struct fields f;
	char *json, **env;

	fields_init(&f, 2);
	fields_add(&f, "MESSAGE=line one\nline \"two\"");
	fields_add(&f, "COREDUMP_COMM=a\\b\x01");
	fields_add(&f, "COREDUMP_PROC_MAPS=x\ny");
	json = crash_json(&f);
	ck_assert_str_eq(json, "{\"PRIORITY\": \"2\", \"SYSLOG_IDENTIFIER\": \"coresink\", "
			 "\"MESSAGE\": \"line one\\nline \\\"two\\\"\", \"COREDUMP_COMM\": \"a\\\\b\\u0001\", "
			 "\"COREDUMP_PROC_MAPS\": \"x\\ny\"}\n");
	env = crash_env(&f, extra);
	ck_assert_str_eq(env[0], "PRIORITY=2");
	ck_assert_str_eq(env[1], "SYSLOG_IDENTIFIER=coresink");
	ck_assert_str_eq(env[2], "COREDUMP_COMM=a\\b\x01");
	ck_assert_str_eq(env[3], "HOME=/");
	ck_assert_ptr_null(env[4]);
	free(json);
	crash_env_free(env);
	fields_free(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("upload");
	TCase *tc = tcase_create("upload");

	tcase_add_test(tc, test_words);
	tcase_add_test(tc, test_bad);
	tcase_add_test(tc, test_backoff);
	tcase_add_test(tc, test_json_env);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
