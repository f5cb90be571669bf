/*
 * check_collect.c: the collect hooks (sandbox/collect.c) run for real, as nobody, from a root-owned directory: the
 * lines KEY=VALUE they print taken as fields (the crash's pid their argument), garbage counted, and the hooks that
 * hang, flood, fail or leave a child holding their pipe each killed within the deadline and said. Real crashes: t-collect.
 */
#include "sandbox.h"
#include "unit.h"

START_TEST(test_key)
{
	size_t k = 0;

	ck_assert_int_eq(collect_key("UNIT=a.service", 14, &k), 0);
	ck_assert_uint_eq(k, 4);
	ck_assert_int_eq(collect_key("A_1=", 4, &k), 0);
	ck_assert_int_eq(collect_key("X==y", 4, &k), 0);
	ck_assert_uint_eq(k, 1);
	ck_assert_int_eq(collect_key("=v", 2, &k), -EINVAL);
	ck_assert_int_eq(collect_key("lower=v", 7, &k), -EINVAL);
	ck_assert_int_eq(collect_key("A B=v", 5, &k), -EINVAL);
	ck_assert_int_eq(collect_key("NOEQUALS", 8, &k), -EINVAL);
	ck_assert_int_eq(collect_key("A=\0b", 4, &k), -EINVAL);
	ck_assert_int_eq(collect_key("ABCDEFGHIJABCDEFGHIJABCDEFGHIJABCDEFGHIJABCDEFGHIJ=v", 52, &k), 0);
	ck_assert_int_eq(collect_key("ABCDEFGHIJABCDEFGHIJABCDEFGHIJABCDEFGHIJABCDEFGHIJK=v", 53, &k), -EINVAL);
}
END_TEST

static void hook(const char *dir, const char *name, const char *body, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

START_TEST(test_hooks)
{
	char dir[256], want[64];
	struct collect co;
	struct diag d = { 0 };
	int probe = (int)syscall(SYS_pidfd_open, getpid(), 0);
	uint64_t t0;

	if (getuid() != 0)
		return;
	unit_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	hook(dir, "10-fields", "echo \"ARG=$1\"; echo \"ENV=$CORESINK_PID\"; echo 'SPACED=a b\tc'; echo 'bad line';"
	     " echo 'lower=x'; echo 'ARG=again'; printf 'ESC=\\033[31m\\n'", 0755);
	hook(dir, "20-sleeps", "exec sleep 100", 0755);
	hook(dir, "30-floods", "yes FLOOD=1 | head -c 100000000", 0755);
	hook(dir, "40-fails", "echo PARTIAL=yes; exit 1", 0755);
	hook(dir, "50-child", "sleep 100 & echo CHILD=left", 0755);
	hook(dir, "60-open", "echo OPEN=1", 0757);
	hook(dir, "70-x.dpkg-old", "echo OLD=1", 0755);
	hook(dir, "80-notexec", "echo NOTEXEC=1", 0644);
	ck_assert_int_eq(collect_list(&co, dir, &d), 5);
	ck_assert_int_eq(diag_count(&d), 1);   /* 60-open: others may write it */
	t0 = now_ms();
	ck_assert_int_eq(collect_start(&co, "nobody", 1500, getpid(), -1), 0);
	collect_wait(&co);
	/* Each ended by the deadline at most: nothing waits past it. */
	ck_assert_uint_lt(now_ms() - t0, 1500 + 1000);
	ck_assert_ptr_nonnull(co.fields);
	snprintf(want, sizeof(want), "ARG=%d\n", (int)getpid());
	ck_assert_ptr_nonnull(strstr(co.fields, want));
	snprintf(want, sizeof(want), "ENV=%d\n", (int)getpid());
	ck_assert_ptr_nonnull(strstr(co.fields, want));
	ck_assert_ptr_nonnull(strstr(co.fields, "SPACED=a b\\tc\n"));
	ck_assert_ptr_nonnull(strstr(co.fields, "ESC=\\x1b[31m\n"));
	ck_assert_ptr_null(strstr(co.fields, "ARG=again"));
	ck_assert_ptr_nonnull(strstr(co.fields, "PARTIAL=yes\n"));
	ck_assert_ptr_nonnull(strstr(co.fields, "CHILD=left\n"));
	ck_assert_ptr_null(strstr(co.fields, "OPEN="));
	ck_assert_ptr_null(strstr(co.fields, "OLD="));
	/* The flood's first line, and never more than the bound's worth. */
	ck_assert_ptr_nonnull(strstr(co.fields, "FLOOD=1\n"));
	ck_assert_uint_le(co.n_fields, COLLECT_FIELDS_MAX);
	ck_assert_ptr_nonnull(strstr(co.said, "10-fields: done in "));
	ck_assert_ptr_nonnull(strstr(co.said, "4 fields (3 lines not taken, the first: \"bad line\")"));
	ck_assert_ptr_nonnull(strstr(co.said, "20-sleeps: timed out, killed, 0 fields"));
	ck_assert_ptr_nonnull(strstr(co.said, probe >= 0 ? "30-floods: output too long, killed, 1 field (" : "30-floods: "));
	ck_assert_ptr_nonnull(strstr(co.said, "40-fails: failed (exit status 1), 1 field"));
	/* With a pidfd its end is its exit, and the child it left is killed; without, the pipe's end never comes. */
	ck_assert_ptr_nonnull(strstr(co.said, probe >= 0 ? "50-child: done in " : "50-child: timed out, killed"));
	ck_assert(co.failed);
	collect_free(&co);
	if (probe >= 0)
		close(probe);
	unit_rmtree(dir);
}
END_TEST

/* Hooks that flood, fail or leave a child behind are ended as they do, not at the deadline (with a pidfd). */
START_TEST(test_no_wait)
{
	int probe = (int)syscall(SYS_pidfd_open, getpid(), 0);
	struct collect co;
	struct diag d = { 0 };
	char dir[256];
	uint64_t t0;

	if (getuid() != 0 || probe < 0)
		return;
	close(probe);
	unit_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	hook(dir, "a", "yes FLOOD=1", 0755);
	hook(dir, "b", "exit 3", 0755);
	hook(dir, "c", "sleep 100 & echo CHILD=left", 0755);
	hook(dir, "d", "kill -SEGV $$", 0755);
	ck_assert_int_eq(collect_list(&co, dir, &d), 4);
	t0 = now_ms();
	ck_assert_int_eq(collect_start(&co, "nobody", 10000, getpid(), -1), 0);
	collect_wait(&co);
	ck_assert_uint_lt(now_ms() - t0, 3000);
	ck_assert_ptr_nonnull(strstr(co.said, "a: output too long, killed"));
	ck_assert_ptr_nonnull(strstr(co.said, "b: failed (exit status 3)"));
	ck_assert_ptr_nonnull(strstr(co.said, "c: done in "));
	ck_assert_ptr_nonnull(strstr(co.said, "d: failed (signal 11)"));
	collect_free(&co);
	unit_rmtree(dir);
}
END_TEST

START_TEST(test_none)
{
	struct collect co;
	struct diag d = { 0 };

	ck_assert_int_eq(collect_list(&co, "", &d), 0);
	ck_assert_int_eq(collect_list(&co, "/nonexistent/collect.d", &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	collect_wait(&co);
	ck_assert_ptr_null(co.fields);
	ck_assert_str_eq(co.said, "");
	collect_free(&co);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("collect");
	TCase *tc = tcase_create("collect");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_key);
	tcase_add_test(tc, test_hooks);
	tcase_add_test(tc, test_no_wait);
	tcase_add_test(tc, test_none);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
