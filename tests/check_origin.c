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

/* An entry as a list of "NAME=value" fields, for origin_canon's get. */
struct list {
	const char *const *f;
	size_t n;
};

static int list_get(void *ctx, const char *name, const void **data, size_t *len)
{
	const struct list *l = ctx;

	for (size_t i = 0; i < l->n; i++)
		if (strncmp(l->f[i], name, strlen(name)) == 0 && l->f[i][strlen(name)] == '=') {
			*data = l->f[i];
			*len = strlen(l->f[i]);
			return 0;
		}
	return -ENOENT;
}

static char *canon_of(const char *const *f, size_t n, const char *prefix, unsigned version)
{
	struct list l = { f, n };
	char *c = NULL;
	size_t len;

	ck_assert_int_eq(origin_canon(list_get, &l, prefix, version, &c, &len), 0);
	return c;
}

/* A version 3 seal covers the hooks' fields CORESINK_HOOKS names: one changed, or one more named, is not sealed. */
START_TEST(test_seal_hooks)
{
	static const char *const entry[] = { "COREDUMP_PID=42", "COREDUMP_EXE=/usr/bin/x", "CORESINK_COLLECT=a: done",
					     "CORESINK_HOOKS=UNIT LOG_1", "CORESINK_HOOK_UNIT=x.service",
					     "CORESINK_HOOK_LOG_1=started" };
	static const char *const seal[] = { "CORESINK_SEALED_COREDUMP_PID=42", "CORESINK_SEALED_COREDUMP_EXE=/usr/bin/x",
					    "CORESINK_SEALED_CORESINK_COLLECT=a: done",
					    "CORESINK_SEALED_CORESINK_HOOKS=UNIT LOG_1",
					    "CORESINK_SEALED_CORESINK_HOOK_UNIT=x.service",
					    "CORESINK_SEALED_CORESINK_HOOK_LOG_1=started" };
	static const char *const changed[] = { "COREDUMP_PID=42", "COREDUMP_EXE=/usr/bin/x", "CORESINK_COLLECT=a: done",
					       "CORESINK_HOOKS=UNIT LOG_1", "CORESINK_HOOK_UNIT=sshd.service",
					       "CORESINK_HOOK_LOG_1=started" };
	char *e3 = canon_of(entry, ELEMENTSOF(entry), "", 3), *s3 = canon_of(seal, ELEMENTSOF(seal), ORIGIN_SEALED_PREFIX, 3);
	char *c3 = canon_of(changed, ELEMENTSOF(changed), "", 3), *e2 = canon_of(entry, ELEMENTSOF(entry), "", 2);
	char *c2 = canon_of(changed, ELEMENTSOF(changed), "", 2);

	ck_assert_str_eq(e3, s3);
	ck_assert_ptr_nonnull(strstr(e3, "CORESINK_HOOK_UNIT 9:x.service\n"));
	ck_assert_ptr_nonnull(strstr(e3, "CORESINK_HOOK_LOG_1 7:started\n"));
	ck_assert_str_ne(e3, c3);
	/* Version 2 did not seal them: its form is unchanged by them (seals written before the upgrade stay good). */
	ck_assert_str_eq(e2, c2);
	ck_assert_ptr_null(strstr(e2, "HOOK"));
	free(e3), free(s3), free(c3), free(e2), free(c2);
}
END_TEST

static Suite *origin_suite(void)
{
	Suite *s = suite_create("origin");
	TCase *tc = tcase_create("origin");

	tcase_add_test(tc, test_seal_hooks);
	tcase_add_loop_test(tc, test_origin, 0, ELEMENTSOF(entries));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(origin_suite)
