/* check_procinfo.c: /proc metadata of a real process, and the identity checks against pid reuse. */
#include <sys/syscall.h>
#include <time.h>

#include "intake.h"
#include "unit.h"

static int pidfd_of(pid_t pid)
{
	return unit_pidfd(pid, "check_procinfo");
}

/* Everything, as a stored crash gets it: the brief part, then the rest. */
static int read_as(pid_t pid, int pidfd, pid_t tid, uint64_t crash_time, bool environ, struct procinfo *pi)
{
	const struct procinfo_id id = { pid, pidfd, tid, crash_time };
	int r = procinfo_read(&id, pi);

	return r < 0 ? r : procinfo_complete(&id, environ, pi);
}

/* A crash that is not stored gets the brief part only: who it is, its unit and credentials, none of the rest. */
START_TEST(test_brief_only)
{
	struct procinfo_id id = { getpid(), -1, 0, (uint64_t)time(NULL) };
	struct procinfo pi;
	int fd = pidfd_of(getpid());

	if (fd < 0)
		return;
	id.pidfd = fd;
	ck_assert_int_eq(procinfo_read(&id, &pi), 0);
	ck_assert(pi.trusted);
	ck_assert(!pi.complete);
	ck_assert_ptr_nonnull(strstr(pi.cmdline, "check_procinfo"));
	ck_assert_ptr_nonnull(pi.status);
	ck_assert_str_ne(pi.exe, "");
	ck_assert_ptr_null(pi.maps);
	ck_assert_ptr_null(pi.fds);
	ck_assert_ptr_null(pi.limits);
	ck_assert_int_eq(procinfo_complete(&id, false, &pi), 0);
	ck_assert(pi.complete);
	ck_assert_ptr_nonnull(pi.maps);
	ck_assert_ptr_nonnull(strstr(pi.cmdline, "check_procinfo"));
	procinfo_free(&pi);
	close(fd);
}
END_TEST

START_TEST(test_self_with_pidfd)
{
	struct procinfo pi;
	char cwd[PATH_MAX];
	int fd = pidfd_of(getpid());

	if (fd < 0)
		return;
	ck_assert_int_eq(read_as(getpid(), fd, 0, (uint64_t)time(NULL), false, &pi), 0);
	ck_assert(pi.trusted);
	ck_assert(pi.by_pidfd);
	ck_assert_ptr_nonnull(strstr(pi.cmdline, "check_procinfo"));
	ck_assert_str_ne(pi.exe, "");
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_str_eq(pi.cwd, cwd);
	ck_assert_str_eq(pi.root, "/");
	ck_assert_ptr_nonnull(strstr(pi.status, "Name:\tcheck_procinfo"));
	ck_assert_ptr_nonnull(strstr(pi.limits, "Max core file size"));
	ck_assert_ptr_nonnull(strstr(pi.maps, "check_procinfo"));
	ck_assert_ptr_nonnull(strstr(pi.fds, "0:"));
	ck_assert_ptr_nonnull(strstr(pi.fds, "flags:"));
	ck_assert_ptr_null(pi.environ);
	ck_assert(!pi.container);
	procinfo_free(&pi);
	close(fd);
}
END_TEST

START_TEST(test_environ_only_when_asked)
{
	struct procinfo pi;
	int fd = pidfd_of(getpid());

	if (fd < 0)
		return;
	ck_assert_int_eq(read_as(getpid(), fd, 0, (uint64_t)time(NULL), true, &pi), 0);
	close(fd);
	/* /proc/PID/environ is the environment at exec, one variable a line here. */
	ck_assert_ptr_nonnull(pi.environ);
	ck_assert_ptr_nonnull(strstr(pi.environ, "PATH="));
	procinfo_free(&pi);
}
END_TEST

START_TEST(test_pidfd_of_another_process_refused)
{
	struct procinfo pi;
	pid_t child = fork();
	int fd;

	ck_assert_int_ge(child, 0);
	if (child == 0) {
		/* Never outlive a failed test by more than a few seconds. */
		alarm(10);
		pause();
		_exit(0);
	}
	fd = pidfd_of(child);
	if (fd < 0) {
		kill(child, SIGKILL);
		unit_reap(child);
		return;
	}
	/* A pidfd that names another process vouches for nothing. */
	ck_assert_int_eq(read_as(getpid(), fd, 0, (uint64_t)time(NULL), false, &pi), -ESRCH);
	ck_assert(!pi.trusted);
	ck_assert_ptr_null(pi.cmdline);
	ck_assert_ptr_nonnull(strstr(pi.why, "pidfd"));
	kill(child, SIGKILL);
	ck_assert_int_eq(WTERMSIG(unit_reap(child)), SIGKILL);
	/* The child is gone now: its pidfd no longer names a live process, and its /proc directory is gone. */
	ck_assert_int_eq(read_as(child, fd, 0, (uint64_t)time(NULL), false, &pi), -ESRCH);
	close(fd);
}
END_TEST

START_TEST(test_started_after_the_crash_refused)
{
	struct procinfo pi;

	/* Without a pidfd, a process that started after the crash time has a reused pid. */
	ck_assert_int_eq(read_as(getpid(), -1, gettid(), 1000000000, false, &pi), -ESRCH);
	ck_assert_ptr_nonnull(strstr(pi.why, "started after the crash"));
}
END_TEST

/*
 * Without a pidfd (kernels before 6.16) a live process that started in time is still not enough: its thread %I must
 * be dumping core, and this one is not, as a process that took over the pid of a crashed one would not be. Neither
 * is %I alone enough without it. (A real crash, whose thread is dumping, is an end-to-end test: t-identity.)
 */
START_TEST(test_not_dumping_refused)
{
	struct procinfo pi;

	ck_assert_int_eq(read_as(getpid(), -1, gettid(), (uint64_t)time(NULL), false, &pi), -ESRCH);
	ck_assert(!pi.trusted);
	ck_assert_ptr_null(pi.cmdline);
	ck_assert_ptr_nonnull(strstr(pi.why, "not dumping core"));
	ck_assert_int_eq(read_as(getpid(), -1, 0, (uint64_t)time(NULL), false, &pi), -ESRCH);
	ck_assert_ptr_nonnull(strstr(pi.why, "%I"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("procinfo");
	TCase *tc = tcase_create("procinfo");

	tcase_add_test(tc, test_self_with_pidfd);
	tcase_add_test(tc, test_environ_only_when_asked);
	tcase_add_test(tc, test_pidfd_of_another_process_refused);
	tcase_add_test(tc, test_started_after_the_crash_refused);
	tcase_add_test(tc, test_not_dumping_refused);
	tcase_add_test(tc, test_brief_only);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
