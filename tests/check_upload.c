/*
 * check_upload.c: ExecUpload='s words and specifiers: quotes and escapes, every specifier, a hostile comm that must
 * stay one safe word and never an option, bad commands refused; the retry backoff; the environment a command gets. Real uploads: t-upload (rclone to a WebDAV server).
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

/*
 * %{KEY}: a label's value, the container's own before its pod's, "unknown" where neither has it; only the labels
 * the command names are kept for its retries; a key outside a label's alphabet is a bad command.
 */
START_TEST(test_labels)
{
	static char buf[4096];
	char kept[256], *argv[UPLOAD_ARGS_MAX];
	struct upload_names n = names;
	const char *cmd = "/usr/bin/rclone copyto /dev/stdin fleet:%{app.kubernetes.io/team}/%{tier}/%{none}/%f";

	upload_labels(cmd, "app.kubernetes.io/team=pay tier=own", "tier=front team=x app=web", kept, sizeof(kept));
	ck_assert_str_eq(kept, "app.kubernetes.io/team=pay tier=own");
	upload_labels(cmd, "", "tier=front team=x", kept, sizeof(kept));
	ck_assert_str_eq(kept, "tier=front");
	/* A key is matched whole: "tier" is not "tier2", nor "t". */
	upload_labels("/bin/x %{t} %{tier}", "tier2=a t2=b", "tier=c", kept, sizeof(kept));
	ck_assert_str_eq(kept, "tier=c");
	n.labels = "app.kubernetes.io/team=pay tier=own";
	ck_assert_int_eq(upload_argv(cmd, &n, buf, sizeof(buf), argv), 4);
	ck_assert_str_eq(argv[3], "fleet:pay/own/unknown/core.x.42.20261123T000000Z");
	/* No labels at all (a retry of a core noted before): every one unknown, the command still runs. */
	n.labels = NULL;
	ck_assert_int_eq(upload_argv("/bin/x %{tier}", &n, buf, sizeof(buf), argv), 2);
	ck_assert_str_eq(argv[1], "unknown");
	/* A value beginning a word is no option. */
	n.labels = "tier=-rf";
	ck_assert_int_eq(upload_argv("/bin/x %{tier}", &n, buf, sizeof(buf), argv), 2);
	ck_assert_str_eq(argv[1], "_rf");
	ck_assert_int_eq(split("/bin/x %{a b}", argv), -EINVAL);
	ck_assert_int_eq(split("/bin/x %{}", argv), -EINVAL);
	ck_assert_int_eq(split("/bin/x %{tier", argv), -EINVAL);
	ck_assert_int_eq(split("/bin/x %{a;b}", argv), -EINVAL);
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

/*
 * The fields as JSON (quotes, backslashes, control bytes escaped) and as the environment: the fixed variables first,
 * then the one-line fields of the handler's own set, clean; nothing else (the door believes no server).
 */
START_TEST(test_json_env)
{
	const char *extra[] = { "HOME=/", "CORESINK_CORE=/var/lib/coresink/core.x", NULL };
	struct fields f;
	char *json, **env;

	fields_init(&f, 2);
	fields_add(&f, "MESSAGE=line one\nline \"two\"");
	fields_add(&f, "COREDUMP_COMM=a\\b");
	fields_add(&f, "COREDUMP_EXE=/x\x01");
	fields_add(&f, "COREDUMP_PROC_MAPS=x\ny");
	fields_add(&f, "LD_PRELOAD=/tmp/evil.so");
	fields_add(&f, "CORESINK_CORE=/etc/shadow");
	fields_add(&f, "COREDUMP_PID=42");
	json = crash_json(&f);
	ck_assert_str_eq(json, "{\"PRIORITY\": \"2\", \"SYSLOG_IDENTIFIER\": \"coresink\", "
			 "\"MESSAGE\": \"line one\\nline \\\"two\\\"\", \"COREDUMP_COMM\": \"a\\\\b\", "
			 "\"COREDUMP_EXE\": \"/x\\u0001\", \"COREDUMP_PROC_MAPS\": \"x\\ny\", "
			 "\"LD_PRELOAD\": \"/tmp/evil.so\", \"CORESINK_CORE\": \"/etc/shadow\", \"COREDUMP_PID\": \"42\"}\n");
	env = crash_env(&f, extra);
	ck_assert_str_eq(env[0], "HOME=/");
	ck_assert_str_eq(env[1], "CORESINK_CORE=/var/lib/coresink/core.x");
	ck_assert_str_eq(env[2], "COREDUMP_COMM=a\\b");
	ck_assert_str_eq(env[3], "COREDUMP_PID=42");
	ck_assert_ptr_null(env[4]);
	free(json);
	crash_env_free(env);
	fields_free(&f);
}
END_TEST

/* What the door takes from socket mode's server: an entry's fields, or nothing. */
START_TEST(test_fields_ours)
{
	struct fields f;
	char why[256];

	fields_init(&f, 2);
	fields_add(&f, "MESSAGE=Process 42 (x) dumped core.");
	fields_add(&f, "COREDUMP_PID=42");
	fields_add(&f, "COREDUMP_PROC_MAPS=multi\nline");
	ck_assert(crash_fields_ours(&f, why, sizeof(why)));
	fields_add(&f, "PATH=/tmp/evil");
	ck_assert(!crash_fields_ours(&f, why, sizeof(why)));
	ck_assert_str_eq(why, "PATH=/tmp/evil");
	fields_free(&f);
	fields_init(&f, 2);
	fields_add(&f, "COREDUMP_EXE=/bin/x\nLD_PRELOAD=/tmp/evil.so");
	ck_assert(!crash_fields_ours(&f, why, sizeof(why)));
	fields_free(&f);
	fields_init(&f, 2);
	fields_add(&f, "coredump_exe=/bin/x");
	ck_assert(!crash_fields_ours(&f, why, sizeof(why)));
	fields_free(&f);
}
END_TEST

/* A value that begins a word is never an option; inside one it stays. */
START_TEST(test_never_an_option)
{
	static const struct upload_names dash = { .file = "f", .dir = "/d", .comm = "--upload-file", .host = "-h" };
	static char buf[4096];
	char *argv[UPLOAD_ARGS_MAX];

	ck_assert_int_eq(upload_argv("/usr/bin/curl %e \"%e\" -T%e https://h/%e %H/x --x=%e", &dash, buf, sizeof(buf),
				     argv), 7);
	ck_assert_str_eq(argv[1], "_-upload-file");
	ck_assert_str_eq(argv[2], "_-upload-file");
	ck_assert_str_eq(argv[3], "-T--upload-file");
	ck_assert_str_eq(argv[4], "https://h/--upload-file");
	ck_assert_str_eq(argv[5], "_h/x");
	ck_assert_str_eq(argv[6], "--x=--upload-file");
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
	tcase_add_test(tc, test_fields_ours);
	tcase_add_test(tc, test_never_an_option);
	tcase_add_test(tc, test_labels);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
