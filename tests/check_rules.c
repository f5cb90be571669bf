/*
 * check_rules.c: which rule a crash gets: each Match key on its own, words ORed, keys ANDed, the first match of
 * several, a bad rule never taken, unknown facts matched by nothing, a pod's labels. Real crashes: t-rules, t-pods.
 */
#include "base.h"
#include "config.h"
#include "unit.h"

static struct rule r;

static void set(enum rule_match m, const char *v)
{
	ck_assert_int_eq(rule_set_match(&r, m, v), 0);
}

static const struct rule_facts crash = {
	.exe = "/usr/lib/postgresql/15/bin/postgres", .comm = "postgres", .unit = "postgresql@15-main.service",
	.user_unit = "", .slice = "system-postgresql.slice", .hostname = "db1", .uid = 110, .signal = SIGSEGV,
	.container = false, .machine = "", .container_id = "",
};

START_TEST(test_each_key)
{
	const struct { enum rule_match m; const char *yes, *no; } t[] = {
		{ MATCH_EXECUTABLE, "/usr/lib/postgresql/*", "/usr/sbin/*" },
		{ MATCH_EXECUTABLE, "/bin/x /usr/lib/postgresql/15/bin/postgres", "/bin/x /bin/y" },
		{ MATCH_COMM, "postg?es", "mysqld" },
		{ MATCH_UNIT, "postgresql@*.service", "nginx.service" },
		{ MATCH_SLICE, "system-*.slice", "user-*.slice" },
		{ MATCH_USER, "0 110", "0 1000" },
		{ MATCH_SIGNAL, "SIGSEGV", "ABRT QUIT" },
		{ MATCH_SIGNAL, "11", "6" },
		{ MATCH_CONTAINER, "no", "yes" },
		{ MATCH_HOSTNAME, "db*", "web*" },
	};

	for (size_t i = 0; i < ELEMENTSOF(t); i++) {
		memset(&r, 0, sizeof(r));
		set(t[i].m, t[i].yes);
		ck_assert_msg(rule_matches(&r, &crash), "%s=%s", rule_match_name(t[i].m), t[i].yes);
		memset(&r, 0, sizeof(r));
		set(t[i].m, t[i].no);
		ck_assert_msg(!rule_matches(&r, &crash), "%s=%s", rule_match_name(t[i].m), t[i].no);
	}
}
END_TEST

START_TEST(test_and_first)
{
	struct rule v[3];
	struct rule_facts f = crash;

	memset(v, 0, sizeof(v));
	ck_assert_int_eq(rule_set_match(&v[0], MATCH_COMM, "postgres"), 0);
	ck_assert_int_eq(rule_set_match(&v[0], MATCH_SIGNAL, "ABRT"), 0);
	ck_assert_int_eq(rule_set_match(&v[1], MATCH_COMM, "post*"), 0);
	v[1].bad = true;
	ck_assert_int_eq(rule_set_match(&v[2], MATCH_UNIT, "*.service"), 0);
	/* Every line must match; a bad rule is never taken, however well it would match. */
	ck_assert_int_eq(rules_pick(v, 3, &f), 2);
	f.signal = SIGABRT;
	ck_assert_int_eq(rules_pick(v, 3, &f), 0);
	/* A rule without Match lines matches every crash. */
	memset(&v[2], 0, sizeof(v[2]));
	f.signal = SIGSEGV;
	ck_assert_int_eq(rules_pick(v, 3, &f), 2);
	ck_assert_int_eq(rules_pick(v, 2, &f), -1);
}
END_TEST

START_TEST(test_unknown_facts)
{
	struct rule_facts f = { .comm = "x", .uid = 0 };

	memset(&r, 0, sizeof(r));
	set(MATCH_EXECUTABLE, "*");
	ck_assert(!rule_matches(&r, &f));   /* no executable known (the process was not proven) */
	memset(&r, 0, sizeof(r));
	set(MATCH_SIGNAL, "SEGV");
	ck_assert(!rule_matches(&r, &f));   /* socket mode, before the dump */
	memset(&r, 0, sizeof(r));
	set(MATCH_CONTAINER, "*");
	f.container = true;
	f.machine = "";
	f.container_id = "0123abcd";
	ck_assert(rule_matches(&r, &f));
	memset(&r, 0, sizeof(r));
	set(MATCH_CONTAINER, "web-*");
	ck_assert(!rule_matches(&r, &f));
	f.machine = "web-1";
	ck_assert(rule_matches(&r, &f));
}
END_TEST

START_TEST(test_pod_labels)
{
	struct rule_facts f = crash;
	const struct { const char *words; bool match; } t[] = {
		{ "app=web", true }, { "app=w*", true }, { "tier", true }, { "app=api tier=front", true },
		{ "app=we", false }, { "ap=web", false }, { "app", true }, { "release", false },
		{ "app=web-canary", false }, { "team=shop/core", false }, { "version=1.2", true },
	};

	f.pod_labels = "app=web tier=front version=1.2";
	for (size_t i = 0; i < ELEMENTSOF(t); i++) {
		memset(&r, 0, sizeof(r));
		set(MATCH_POD_LABEL, t[i].words);
		ck_assert_msg(rule_matches(&r, &f) == t[i].match, "MatchPodLabel=%s", t[i].words);
	}
	/* A pod without labels, or a crash in none, matches no label. */
	memset(&r, 0, sizeof(r));
	set(MATCH_POD_LABEL, "app");
	f.pod_labels = "";
	ck_assert(!rule_matches(&r, &f));
	f.pod_labels = NULL;
	ck_assert(!rule_matches(&r, &f));
	ck_assert_int_eq(rule_match_key("MatchPodLabel"), MATCH_POD_LABEL);
	/* MatchContainerLabel= reads the container's own labels the same way, never its pod's. */
	f.pod_labels = "app=web";
	f.labels = "team=pay tier=back";
	memset(&r, 0, sizeof(r));
	set(MATCH_CONTAINER_LABEL, "team=p* other");
	ck_assert(rule_matches(&r, &f));
	memset(&r, 0, sizeof(r));
	set(MATCH_CONTAINER_LABEL, "app");
	ck_assert(!rule_matches(&r, &f));
	f.labels = NULL;
	ck_assert(!rule_matches(&r, &f));
	ck_assert_int_eq(rule_match_key("MatchContainerLabel"), MATCH_CONTAINER_LABEL);
}
END_TEST

START_TEST(test_bad_values)
{
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(rule_set_match(&r, MATCH_SIGNAL, "SEGV NOSUCH"), -EINVAL);
	ck_assert_int_eq(rule_set_match(&r, MATCH_SIGNAL, "64"), -EINVAL);
	ck_assert_int_eq(rule_set_match(&r, MATCH_COMM, "   "), -EINVAL);
	ck_assert_int_eq(rule_set_match(&r, MATCH_COMM, "a"), 0);
	ck_assert_int_eq(rule_set_match(&r, MATCH_COMM, "b"), -EEXIST);
	ck_assert_int_eq(rule_match_key("MatchExecutable"), MATCH_EXECUTABLE);
	ck_assert_int_eq(rule_match_key("MatchExecutabel"), -ENOENT);
	ck_assert_int_eq(rule_signal("SIGQUIT"), SIGQUIT);
	ck_assert_int_eq(rule_signal("ABRT"), SIGABRT);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("rules");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_each_key);
	tcase_add_test(tc, test_and_first);
	tcase_add_test(tc, test_unknown_facts);
	tcase_add_test(tc, test_bad_values);
	tcase_add_test(tc, test_pod_labels);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
