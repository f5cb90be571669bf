/*
 * check_origin.c: which entries with coresink's MESSAGE_ID coresink wrote, judged by the fields journald records of
 * the sender: the handler's own entries in both modes, as root and as the crashing user, against what a local user
 * can send (logger, a script, coresink's own binary run in a user namespace of theirs).
 */
#include "report.h"
#include "unit.h"

static const struct {
	const char *what;
	struct origin o;
	bool trusted;
} entries[] = {
	{ "pipe mode, root's entry", { "journal", "coresink", "/usr/libexec/coresink", "0", "/", "0" }, true },
	{ "pipe mode, root's entry, no systemd (no cgroup field)",
	  { "journal", "coresink", "/usr/local/libexec/coresink", "0", NULL, "1000" }, true },
	{ "pipe mode, the user's entry (kernel's helper: root cgroup)",
	  { "journal", "coresink", "/usr/libexec/coresink", "1000", "/", "1000" }, true },
	{ "socket mode, the user's entry", { "journal", "coresink", "/usr/libexec/coresink", "1000",
	  "/system.slice/coresink.service", "1000" }, true },
	{ "socket mode, below the service's cgroup", { "journal", "coresink", "/usr/libexec/coresink", "1000",
	  "/system.slice/coresink.service/crash", "1000" }, true },
	/* What users can send. */
	{ "logger -p ... with our fields", { "journal", "logger", "/usr/bin/logger", "65534",
	  "/user.slice/user-65534.slice/session-3.scope", "0" }, false },
	{ "a script as nobody claiming sshd's crash as root's", { "journal", "python3", "/usr/bin/python3.11", "65534",
	  "/user.slice/user-65534.slice/session-3.scope", "0" }, false },
	{ "coresink run by a user in a user namespace, about their own uid",
	  { "journal", "coresink", "/usr/libexec/coresink", "1000", "/user.slice/user-1000.slice/session-3.scope",
	    "1000" }, false },
	{ "a copy named coresink, in a user's own service", { "journal", "coresink", "/home/u/coresink", "1000",
	  "/user.slice/user-1000.slice/user@1000.service/app.slice/x.service", "1000" }, false },
	{ "a user's cgroup that only mentions the service", { "journal", "coresink", "/usr/libexec/coresink", "1000",
	  "/user.slice/user-1000.slice/user@1000.service/coresink.service", "1000" }, false },
	{ "the user's uid, another user's crash", { "journal", "coresink", "/usr/libexec/coresink", "1000", "/",
	  "0" }, false },
	{ "a user's entry without systemd: cannot be told from a forgery",
	  { "journal", "coresink", "/usr/libexec/coresink", "1000", NULL, "1000" }, false },
	{ "syslog, not the native protocol", { "syslog", "coresink", "/usr/libexec/coresink", "0", "/", "0" }, false },
	{ "stdout of a unit", { "stdout", "coresink", "/usr/libexec/coresink", "0", "/", "0" }, false },
	{ "no _COMM or _EXE", { "journal", NULL, NULL, "0", "/", "0" }, false },
	{ "systemd-coredump's own entry", { "journal", "systemd-coredum", "/usr/lib/systemd/systemd-coredump", "0",
	  "/system.slice/systemd-coredump@0-1-0.service", "0" }, false },
};

START_TEST(test_origin)
{
	const char *why = "unset";
	bool t = origin_trusted(&entries[_i].o, &why);

	ck_assert_msg(t == entries[_i].trusted, "%s: trusted %d", entries[_i].what, t);
	if (t)
		ck_assert_ptr_null(why);
	else
		ck_assert_ptr_nonnull(why);
}
END_TEST

static Suite *origin_suite(void)
{
	Suite *s = suite_create("origin");
	TCase *tc = tcase_create("origin");

	tcase_add_loop_test(tc, test_origin, 0, ELEMENTSOF(entries));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(origin_suite)
