/* check_creds.c: whether a crashed process kept its credentials, from its status and auxiliary vector. */
#include <elf.h>

#include "intake.h"
#include "unit.h"

static const char plain[] = "Name:\tcat\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nGroups:\n";
static const char setuid_status[] = "Name:\tsu\nUid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\n";
static const char setgid_status[] = "Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t5\t5\t5\n";
/* A process that dropped privileges for good: the same ids everywhere now, but started setuid (AT_SECURE 1). */
static const char dropped[] = "Name:\tping\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n";

static size_t auxv(Elf64_auxv_t *a, long secure)
{
	size_t n = 0;

	a[n++] = (Elf64_auxv_t) { .a_type = AT_PAGESZ, .a_un.a_val = 4096 };
	if (secure >= 0)
		a[n++] = (Elf64_auxv_t) { .a_type = AT_SECURE, .a_un.a_val = (uint64_t)secure };
	a[n++] = (Elf64_auxv_t) { .a_type = AT_NULL };
	return n * sizeof(*a);
}

START_TEST(test_unchanged)
{
	Elf64_auxv_t a[4];
	size_t len = auxv(a, 0);

	ck_assert(creds_unchanged(plain, a, len));
}
END_TEST

START_TEST(test_changed)
{
	Elf64_auxv_t a[4];
	size_t len = auxv(a, 0);

	ck_assert(!creds_unchanged(setuid_status, a, len));
	ck_assert(!creds_unchanged(setgid_status, a, len));
	len = auxv(a, 1);
	ck_assert(!creds_unchanged(dropped, a, len));
}
END_TEST

/* What cannot be read counts as changed: no status, no auxv, no AT_SECURE, a cut vector. */
START_TEST(test_unknown)
{
	Elf64_auxv_t a[4];
	size_t len = auxv(a, 0);

	ck_assert(!creds_unchanged(NULL, a, len));
	ck_assert(!creds_unchanged(plain, NULL, 0));
	ck_assert(!creds_unchanged(plain, a, sizeof(a[0])));
	ck_assert(!creds_unchanged("Name:\tx\nUid:\t1000\n", a, len));
	len = auxv(a, -1);
	ck_assert(!creds_unchanged(plain, a, len));
}
END_TEST

/* This very process, as the handler reads a crashed one. */
START_TEST(test_self)
{
	char *status = NULL, buf[4096];
	size_t n = 0, m;
	FILE *f = fopen("/proc/self/status", "re");
	int fd = open("/proc/self/auxv", O_RDONLY | O_CLOEXEC);
	ssize_t k;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(getdelim(&status, &n, '\0', f), 0);
	fclose(f);
	for (m = 0; (k = read(fd, buf + m, sizeof(buf) - m)) > 0; m += (size_t)k)
		;
	close(fd);
	ck_assert(creds_unchanged(status, buf, m) == (getuid() == geteuid() && getgid() == getegid()));
	free(status);
}
END_TEST

/* Who counts as a person: the table of systemd's ranges, at their edges. */
static const struct {
	uid_t uid;
	bool regular;
} uids[] = {
	{ 0, false }, { 1, false }, { 33, false } /* www-data */, { 999, false }, { 1000, true }, { 54321, true },
	{ 60000, true }, { 61183, true }, { 61184, false } /* DynamicUser= */, { 65519, false }, { 65520, true },
	{ 65533, true }, { 65534, false } /* nobody */, { 65535, false }, { 65536, true }, { 0x7ffff, true },
	{ 0x80000, false } /* containers */, { 0x6fffffff, false }, { 0x7ffe0000, false }, { (uid_t)-2, false },
	{ (uid_t)-1, false },
};

START_TEST(test_regular_uids)
{
	ck_assert_msg(uid_is_regular(uids[_i].uid) == uids[_i].regular, "uid %u", (unsigned)uids[_i].uid);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("creds");
	TCase *t = tcase_create("core");

	tcase_add_test(t, test_unchanged);
	tcase_add_test(t, test_changed);
	tcase_add_test(t, test_unknown);
	tcase_add_test(t, test_self);
	tcase_add_loop_test(t, test_regular_uids, 0, sizeof(uids) / sizeof(uids[0]));
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(suite)
