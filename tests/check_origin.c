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
	{ "pipe mode, root's entry", { "coresink", "journal", "coresink", "/usr/libexec/coresink", "0", "/", "0", NULL }, true },
	{ "pipe mode, root's entry, no systemd (no cgroup field)",
	  { "coresink", "journal", "coresink", "/usr/local/libexec/coresink", "0", NULL, "1000", NULL }, true },
	{ "pipe mode, the user's entry (kernel's helper: journald records no cgroup for the root one)",
	  { "coresink", "journal", "coresink", "/usr/libexec/coresink", "1000", NULL, "1000", NULL }, true },
	{ "pipe mode, the user's entry, a journald that names the root cgroup",
	  { "coresink", "journal", "coresink", "/usr/libexec/coresink", "1000", "/", "1000", NULL }, true },
	{ "socket mode, the user's entry", { "coresink", "journal", "coresink", "/usr/libexec/coresink", "1000",
	  "/system.slice/coresink.service", "1000", NULL }, true },
	{ "socket mode, below the service's cgroup", { "coresink", "journal", "coresink", "/usr/libexec/coresink", "1000",
	  "/system.slice/coresink.service/crash", "1000", NULL }, true },
	/* What users can send. */
	{ "logger -p ... with our fields", { "coresink", "journal", "logger", "/usr/bin/logger", "65534",
	  "/user.slice/user-65534.slice/session-3.scope", "0", NULL }, false },
	{ "a script as nobody claiming sshd's crash as root's", { "coresink", "journal", "python3", "/usr/bin/python3.11", "65534",
	  "/user.slice/user-65534.slice/session-3.scope", "0", NULL }, false },
	{ "coresink run by a user in a user namespace, about their own uid",
	  { "coresink", "journal", "coresink", "/usr/libexec/coresink", "1000", "/user.slice/user-1000.slice/session-3.scope",
	    "1000", NULL }, false },
	{ "a copy named coresink, in a user's own service", { "coresink", "journal", "coresink", "/home/u/coresink", "1000",
	  "/user.slice/user-1000.slice/user@1000.service/app.slice/x.service", "1000", NULL }, false },
	{ "a user's cgroup that only mentions the service", { "coresink", "journal", "coresink", "/usr/libexec/coresink", "1000",
	  "/user.slice/user-1000.slice/user@1000.service/coresink.service", "1000", NULL }, false },
	{ "the user's uid, another user's crash", { "coresink", "journal", "coresink", "/usr/libexec/coresink", "1000", "/",
	  "0", NULL }, false },
	{ "without systemd, coresink run from a user's login in a user namespace",
	  { "coresink", "journal", "coresink", "/usr/libexec/coresink", "1000", NULL, "1000", "1000" }, false },
	{ "a process of a user's systemd session outside every cgroup field",
	  { "coresink", "journal", "coresink", "/usr/libexec/coresink", "1000", NULL, "1000", "1000" }, false },
	{ "syslog, not the native protocol", { "coresink", "syslog", "coresink", "/usr/libexec/coresink", "0", "/", "0", NULL }, false },
	{ "stdout of a unit", { "coresink", "stdout", "coresink", "/usr/libexec/coresink", "0", "/", "0", NULL }, false },
	{ "root's entry, its sender gone before journald read /proc", { "coresink", "journal", NULL, NULL, "0", NULL,
	  "0", NULL }, true },
	{ "a user's entry, its sender gone before journald read /proc", { "coresink", "journal", NULL, NULL, "1000",
	  NULL, "1000", NULL }, false },
	{ "a user's program that named itself coresink (PR_SET_NAME)", { "coresink", "journal", "coresink",
	  "/usr/bin/python3.11", "1000", NULL, "1000", NULL }, false },
	{ "a root program's entry with our MESSAGE_ID and no identifier", { NULL, "journal", "bash", "/usr/bin/bash", "0",
	  NULL, "0", NULL }, false },
	{ "systemd-coredump's own entry", { "systemd-coredump", "journal", "systemd-coredum", "/usr/lib/systemd/systemd-coredump", "0",
	  "/system.slice/systemd-coredump@0-1-0.service", "0", NULL }, false },
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
