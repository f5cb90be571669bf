/*
 * check_origin.c: which entries with coresink's MESSAGE_ID coresink wrote, judged by what journald records of the
 * sender and by root's seals: the handler's own entries, as root and as the crashing user, against what a local user
 * can send (logger, a script, coresink's own binary run in a user namespace of theirs).
 */
#include "report.h"
#include "unit.h"

static const struct {
	const char *what;
	struct origin o;
	bool trusted;
} entries[] = {
	{ "root's entry", { "coresink", "journal", "0", "0", false, false }, true },
	{ "root's entry about a user's crash", { "coresink", "journal", "0", "1000", false, false }, true },
	{ "the user's entry, sealed by root", { "coresink", "journal", "1000", "1000", true, false }, true },
	{ "the user's entry, read by that user, who cannot read root's seals",
	  { "coresink", "journal", "1000", "1000", false, true }, true },
	/* What users can send. */
	{ "the user's own entry, no seal (logger, or coresink in a user namespace)",
	  { "coresink", "journal", "1000", "1000", false, false }, false },
	{ "a user's entry claiming root's crash", { "coresink", "journal", "65534", "0", false, false }, false },
	{ "a user's entry claiming another user's, even with a seal of theirs",
	  { "coresink", "journal", "1000", "1001", true, false }, false },
	{ "another identifier", { "logger", "journal", "0", "0", false, false }, false },
	{ "no identifier (a root program's)", { NULL, "journal", "0", "0", false, false }, false },
	{ "systemd-coredump's own entry", { "systemd-coredump", "journal", "0", "0", false, false }, false },
	{ "syslog, not the native protocol", { "coresink", "syslog", "0", "0", false, false }, false },
	{ "a unit's stdout", { "coresink", "stdout", "0", "0", false, false }, false },
	{ "no _UID", { "coresink", "journal", NULL, "0", false, false }, false },
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
