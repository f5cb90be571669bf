/*
 * check_sockcap.c: whether a kernel serves the coredump socket's "@@", decided from what each kernel people run
 * did when asked (the facts below were read off Debian's own kernels booted in VMs, make check-vm), and the probe
 * on this machine's kernel.
 */
#include "intake.h"
#include "unit.h"

#define NA (-ENODATA)   /* not asked: the probe of the pattern runs only where the rest leaves socket mode possible */

static const struct {
	const char *what;
	struct sockcap facts;
	bool serves;
	const char *why;   /* a word of the reason where it does not serve */
} kernels[] = {
	/* Debian 12: no PIDFD_GET_INFO (6.13), no core_modes; "@@" would be a file name. */
	{ "6.1", { 6, 1, 0, -ENOENT, NA }, false, "PIDFD_INFO_COREDUMP" },
	{ "6.1, asked anyway", { 6, 1, 0, -ENOENT, 0 }, false, "file name" },
	/* Debian 13: PIDFD_GET_INFO came in 6.13, so still no answer. */
	{ "6.12", { 6, 12, 0, -ENOENT, NA }, false, "PIDFD_INFO_COREDUMP" },
	/* 6.13 to 6.15: PIDFD_GET_INFO without the coredump bit. */
	{ "6.14", { 6, 14, 0, -ENOENT, NA }, false, "PIDFD_INFO_COREDUMP" },
	/* 6.16: the "@" socket and PIDFD_INFO_COREDUMP, but no request protocol; it refuses "@@" of any kind. */
	{ "6.16", { 6, 16, 1, 1, NA }, false, "6.17" },
	/* 6.17.0 to 6.17.4 take the relative pattern on write and refuse it on the read that follows. */
	{ "6.17.2", { 6, 17, 1, 1, 1 }, true, NULL },
	{ "6.18", { 6, 18, 1, 1, 1 }, true, NULL },
	{ "7.2", { 7, 2, 1, 1, 1 }, true, NULL },
	/* A container, or not root: /proc/sys cannot be written; the pidfd and the release decide. */
	{ "6.18, container", { 6, 18, 1, 1, -EROFS }, true, NULL },
	{ "6.18, not root", { 6, 18, 1, 1, -EACCES }, true, NULL },
	/* A pidfd that cannot be asked (a seccomp filter), the pattern refused: the kernel still said yes once. */
	{ "6.18, no pidfd", { 6, 18, -EPERM, 1, 1 }, true, NULL },
	/* Neither asked: the release alone is not enough. */
	{ "6.18, nothing asked", { 6, 18, -EPERM, -ENOENT, -EACCES }, false, "could not be asked" },
	/* A release that says 6.18 on a kernel that takes "@@" as a file name (a vendor's string): the kernel wins. */
	{ "6.18 in name only", { 6, 18, 1, -ENOENT, 0 }, false, "file name" },
	/* A backport with every fact but a 6.12 release: refused, pipe mode is safe on it. */
	{ "6.12 with a backport", { 6, 12, 1, 1, 1 }, false, "6.17" },
	{ "core_modes without the socket", { 6, 18, 1, 0, NA }, false, "core_modes" },
	{ "no release", { 0, 0, 1, 1, 1 }, false, "6.17" },
};

START_TEST(test_decision)
{
	const char *why = "unset";
	bool serves = sockcap_serves(&kernels[_i].facts, &why);

	ck_assert_msg(serves == kernels[_i].serves, "%s: serves %d", kernels[_i].what, serves);
	if (serves)
		ck_assert_ptr_null(why);
	else
		ck_assert_msg(why && strstr(why, kernels[_i].why), "%s: %s", kernels[_i].what, why ? why : "(null)");
}
END_TEST

START_TEST(test_release)
{
	unsigned int major = 0, minor = 0;

	ck_assert_int_eq(sockcap_release("6.12.57+deb13-amd64", &major, &minor), 0);
	ck_assert_uint_eq(major, 6);
	ck_assert_uint_eq(minor, 12);
	ck_assert_int_eq(sockcap_release("7.2.0-1-amd64", &major, &minor), 0);
	ck_assert_uint_eq(major, 7);
	ck_assert_uint_eq(minor, 2);
	ck_assert_int_eq(sockcap_release("garbage", &major, &minor), -EINVAL);
	ck_assert_int_eq(sockcap_release(NULL, &major, &minor), -EINVAL);
}
END_TEST

/*
 * On this machine's kernel, whatever it is: the probe agrees with its release, and never leaves its pattern
 * changed. As root, the pattern is tried too.
 */
START_TEST(test_probe_here)
{
	char before[CORE_PATTERN_MAX + 2], after[CORE_PATTERN_MAX + 2];
	struct sockcap k;
	int pidfd = unit_pidfd(getpid(), "sockcap");

	/* Where pidfd_open is unknown (valgrind), the probe rightly says no: nothing to compare with the release. */
	if (pidfd < 0)
		return;
	(void) close(pidfd);
	ck_assert_int_eq(core_pattern_get(before, sizeof(before)), 0);
	sockcap_probe(&k, geteuid() == 0);
	ck_assert_int_eq(core_pattern_get(after, sizeof(after)), 0);
	ck_assert_str_eq(before, after);
	ck_assert_uint_gt(k.major, 0);
	if (k.major > 6 || (k.major == 6 && k.minor >= 16))
		ck_assert_int_eq(k.pidfd_coredump, 1);
	if (k.major < 6 || (k.major == 6 && k.minor < 13))
		ck_assert_int_eq(k.pidfd_coredump, 0);
	if (geteuid() == 0 && (k.major > 6 || (k.major == 6 && k.minor >= 18)))
		ck_assert_int_eq(k.refuses_relative, 1);
	if (k.major > 6 || (k.major == 6 && k.minor >= 18))
		ck_assert(sockcap_serves(&k, NULL));
	if (k.major < 6 || (k.major == 6 && k.minor < 16))
		ck_assert(!sockcap_serves(&k, NULL));
}
END_TEST

static Suite *sockcap_suite(void)
{
	Suite *s = suite_create("sockcap");
	TCase *tc = tcase_create("sockcap");

	tcase_add_loop_test(tc, test_decision, 0, ELEMENTSOF(kernels));
	tcase_add_test(tc, test_release);
	tcase_add_test(tc, test_probe_here);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(sockcap_suite)
