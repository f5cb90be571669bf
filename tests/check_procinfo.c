/* check_procinfo.c: /proc metadata of a real process, and the identity checks against pid reuse. */
#include <linux/capability.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* The CPU a thread last ran on (apart.c holds a dumping thread there): this one, held on each of its CPUs in turn. */
START_TEST(test_task_cpu)
{
	cpu_set_t mine, one;
	int dirfd = proc_open(0), seen = 0;

	ck_assert_int_ge(dirfd, 0);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &mine))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
		ck_assert_int_eq(proc_task_cpu(dirfd, gettid()), cpu);
		seen++;
	}
	ck_assert_int_eq(sched_setaffinity(0, sizeof(mine), &mine), 0);
	ck_assert_int_eq(seen, CPU_COUNT(&mine));
	ck_assert_int_lt(proc_task_cpu(dirfd, 0), 0);
	close(dirfd);
}
END_TEST

/* The files with code this process has mapped: each opened once, regular, read-only, the executable among them. */
START_TEST(test_mapped_self)
{
	const struct procinfo_id id = { getpid(), pidfd_of(getpid()), 0, (uint64_t)time(NULL) };
	struct procinfo pi;
	struct mapped m;
	struct stat exe, st;
	bool have_exe = false;

	if (id.pidfd < 0 || geteuid() != 0)
		return;
	ck_assert_int_eq(read_as(id.pid, id.pidfd, 0, id.crash_time, false, &pi), 0);
	ck_assert_int_eq(mapped_open(&id, pi.maps, pi.exe, &m), 0);
	ck_assert_int_ge(m.n, 2);
	ck_assert_uint_eq(m.over, 0);
	ck_assert_ptr_null(m.why);
	ck_assert_int_eq(stat("/proc/self/exe", &exe), 0);
	for (unsigned i = 0; i < m.n; i++) {
		ck_assert_int_eq(fstat(m.files[i].fd, &st), 0);
		ck_assert(S_ISREG(st.st_mode));
		ck_assert_int_eq(fcntl(m.files[i].fd, F_GETFL) & O_ACCMODE, O_RDONLY);
		ck_assert(m.files[i].lo < m.files[i].hi);
		have_exe |= st.st_ino == exe.st_ino && st.st_dev == exe.st_dev;
		for (unsigned j = 0; j < i; j++) {
			struct stat other;

			ck_assert_int_eq(fstat(m.files[j].fd, &other), 0);
			ck_assert(other.st_ino != st.st_ino || other.st_dev != st.st_dev);
		}
	}
	ck_assert(have_exe);
	mapped_free(&m);
	procinfo_free(&pi);
	close(id.pidfd);
}
END_TEST

/* A mapping on a device no mount table names is never opened (it may be a FUSE mount out of sight). */
START_TEST(test_mapped_unknown_device_skipped)
{
	const struct procinfo_id id = { getpid(), pidfd_of(getpid()), 0, (uint64_t)time(NULL) };
	struct procinfo pi;
	struct mapped m;
	char maps[PATH_MAX + 128], *line;

	if (id.pidfd < 0 || geteuid() != 0)
		return;
	ck_assert_int_eq(read_as(id.pid, id.pidfd, 0, id.crash_time, false, &pi), 0);
	/* The executable's first mapping with code, its device made one that no mount has. */
	maps[0] = '\0';
	for (line = pi.maps; line && *line && !maps[0]; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		size_t len = strcspn(line, "\n");

		if (len < sizeof(maps) && len > strlen(pi.exe) && memmem(line, len, " r-xp ", 6) &&
		    memcmp(line + len - strlen(pi.exe), pi.exe, strlen(pi.exe)) == 0)
			snprintf(maps, sizeof(maps), "%.*s", (int)len, line);
	}
	ck_assert_str_ne(maps, "");
	/* "START-END r-xp OFFSET DEV ...": the device is the fourth field. */
	memcpy(strchr(strchr(strstr(maps, " r-xp ") + 6, ' ') + 1, ' ') - 5, "ff:ff", 5);
	ck_assert_int_eq(mapped_open(&id, maps, pi.exe, &m), 0);
	ck_assert_uint_eq(m.n, 0);
	ck_assert_uint_eq(m.skipped, 1);
	mapped_free(&m);
	procinfo_free(&pi);
	close(id.pidfd);
}
END_TEST

/*
 * Without CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE the kernel refuses map_files: only the executable is opened,
 * through exe, and m says why. Run in a child that drops both, which writes "n why-set exe-is-it" back.
 */
START_TEST(test_mapped_without_the_capability)
{
	int p[2], probe = pidfd_of(getpid());
	char out[16] = "";
	pid_t child;

	if (geteuid() != 0 || probe < 0)
		return;
	close(probe);
	ck_assert_int_eq(pipe(p), 0);
	child = fork();
	if (child == 0) {
		struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct d[2];
		const struct procinfo_id id = { getpid(), pidfd_of(getpid()), 0, (uint64_t)time(NULL) };
		struct procinfo pi;
		struct mapped m;
		struct stat exe, st;
		int ok;

		if (syscall(SYS_capget, &h, d) < 0)
			_exit(1);
		d[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
		d[CAP_CHECKPOINT_RESTORE / 32].effective &= ~(1U << (CAP_CHECKPOINT_RESTORE % 32));
		if (syscall(SYS_capset, &h, d) < 0 || id.pidfd < 0 ||
		    read_as(id.pid, id.pidfd, 0, id.crash_time, false, &pi) < 0 || mapped_open(&id, pi.maps, pi.exe, &m) < 0)
			_exit(1);
		ok = m.n == 1 && stat("/proc/self/exe", &exe) == 0 && fstat(m.files[0].fd, &st) == 0 &&
		     st.st_ino == exe.st_ino;
		dprintf(p[1], "%u %d %d", m.n, m.why != NULL, ok);
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_gt(read(p[0], out, sizeof(out) - 1), 0);
	close(p[0]);
	waitpid(child, NULL, 0);
	ck_assert_str_eq(out, "1 1 1");
}
END_TEST

/* Opened through a pid whose pidfd names another process: nothing is kept open. */
START_TEST(test_mapped_other_pidfd_refused)
{
	struct procinfo_id id = { getpid(), -1, 0, (uint64_t)time(NULL) };
	struct procinfo pi;
	struct mapped m;
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	id.pidfd = pidfd_of(child);
	if (id.pidfd < 0 || geteuid() != 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return;
	}
	ck_assert_int_eq(read_as(getpid(), pidfd_of(getpid()), 0, id.crash_time, false, &pi), 0);
	ck_assert_int_eq(mapped_open(&id, pi.maps, pi.exe, &m), -ESRCH);
	ck_assert_uint_eq(m.n, 0);
	ck_assert_ptr_null(m.files);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	procinfo_free(&pi);
	close(id.pidfd);
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
	tcase_add_test(tc, test_task_cpu);
	tcase_add_test(tc, test_brief_only);
	tcase_add_test(tc, test_mapped_self);
	tcase_add_test(tc, test_mapped_unknown_device_skipped);
	tcase_add_test(tc, test_mapped_without_the_capability);
	tcase_add_test(tc, test_mapped_other_pidfd_refused);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
