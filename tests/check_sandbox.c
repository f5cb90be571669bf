/*
 * check_sandbox.c: the analysis sandbox with real children: what they write comes back; a loop is killed at the
 * deadline, a hog at its memory limit, a chatterbox at the output bound; they run without privileges, fds or
 * environment. Under valgrind the children cannot be confined (valgrind refuses their setrlimit calls, and the
 * sandbox then rightly refuses to run them), so there only the parent's side is run: a child that cannot be
 * confined must never run the function.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <valgrind/valgrind.h>

#include "sandbox.h"
#include "unit.h"

static const struct sandbox_limits base = {
	.uid = 65534, .gid = 65534, .address_space = 4ULL << 30, .data = 256ULL << 20, .cpu_seconds = 10,
	.timeout_ms = 5000, .output_max = 4096, .root_fd = -1,
};

static int say_hello(int fd, int out, void *arg)
{
	(void) fd, (void) arg;
	return write(out, "hello", 5) == 5 ? 0 : 1;
}

static int spin(int fd, int out, void *arg)
{
	(void) fd, (void) out, (void) arg;
	for (volatile unsigned long i = 0;; i++)
		;
	return 0;
}

static int sleep_forever(int fd, int out, void *arg)
{
	(void) fd, (void) out, (void) arg;
	for (;;)
		pause();
	return 0;
}

/* Where hog() keeps what it takes: it never frees, that is the point (and no analyser need call it a leak). */
static char *volatile hogged;

/* Allocates and touches memory until refused, then fails: RLIMIT_DATA stops it. */
static int hog(int fd, int out, void *arg)
{
	(void) fd, (void) out, (void) arg;
	for (;;) {
		char *p = malloc(16 << 20);

		if (!p)
			return 1;
		memset(p, 1, 16 << 20);
		hogged = p;
	}
}

static int chatter(int fd, int out, void *arg)
{
	char buf[1024];

	(void) fd, (void) arg;
	memset(buf, 'x', sizeof(buf));
	for (;;)
		if (write(out, buf, sizeof(buf)) < 0)
			return 1;
}

/* Reports who it is, its capabilities, its open fds and its environment, one per line. */
static int whoami(int fd, int out, void *arg)
{
	char line[256], status[8192];
	int s = open("/proc/self/status", O_RDONLY), nfd = 0;
	ssize_t n = read(s, status, sizeof(status) - 1);
	const char *cap;
	extern char **environ;

	(void) arg;
	close(s);
	status[n > 0 ? n : 0] = '\0';
	cap = strstr(status, "CapEff:");
	for (int i = 0; i < 64; i++)
		nfd += fcntl(i, F_GETFD) >= 0;
	n = snprintf(line, sizeof(line), "%u %u %.24s %d %d %d\n", (unsigned)getuid(), (unsigned)getgid(),
		     cap ? cap : "none", nfd, environ && environ[0] ? 1 : 0, fd == 3);
	return write(out, line, (size_t)n) == n ? 0 : 1;
}

static struct sandbox_result run(struct sandbox_limits l, sandbox_fn fn)
{
	struct sandbox_result r;
	int fd = open("/dev/null", O_RDONLY);

	ck_assert_int_eq(sandbox_run(&l, fd, fn, NULL, &r), 0);
	close(fd);
	return r;
}

START_TEST(test_output)
{
	struct sandbox_result r = run(base, say_hello);

	ck_assert_int_eq(r.end, SANDBOX_DONE);
	ck_assert_str_eq(r.out, "hello");
	sandbox_result_free(&r);
}
END_TEST

START_TEST(test_deadline)
{
	struct sandbox_limits l = base;
	struct sandbox_result r;

	l.timeout_ms = 300;
	r = run(l, sleep_forever);
	ck_assert_int_eq(r.end, SANDBOX_TIMEOUT);
	ck_assert_uint_ge(r.elapsed_us, 300000);
	ck_assert_uint_lt(r.elapsed_us, 3000000);
	sandbox_result_free(&r);
}
END_TEST

START_TEST(test_cpu_limit)
{
	struct sandbox_limits l = base;
	struct sandbox_result r;

	l.cpu_seconds = 1;
	/*
	 * The deadline well past the CPU second: with check-all's other lanes on both CPUs (a VM under emulation, the
	 * roots' builds), the spinning child had not had its second in 5 s (local run 79), and the deadline took it.
	 */
	l.timeout_ms = 60000;
	r = run(l, spin);
	ck_assert_int_eq(r.end, SANDBOX_KILLED);
	ck_assert(r.code == SIGXCPU || r.code == SIGKILL);
	sandbox_result_free(&r);
}
END_TEST

START_TEST(test_memory_limit)
{
	struct sandbox_limits l = base;
	struct sandbox_result r;

	/* An AddressSanitizer build sets no memory limit (sandbox.c): the hog would take the machine. */
	if (!sandbox_limits_memory())
		return;
	l.data = 64ULL << 20;
	r = run(l, hog);
	ck_assert(r.end == SANDBOX_FAILED || r.end == SANDBOX_KILLED);
	ck_assert_uint_lt(r.elapsed_us, 4000000);
	sandbox_result_free(&r);
}
END_TEST

START_TEST(test_output_bound)
{
	struct sandbox_result r = run(base, chatter);

	ck_assert_int_eq(r.end, SANDBOX_TOO_LONG);
	ck_assert_uint_eq(r.len, base.output_max);
	sandbox_result_free(&r);
}
END_TEST

START_TEST(test_confined)
{
	struct sandbox_result r = run(base, whoami);
	char expect[128];

	ck_assert_int_eq(r.end, SANDBOX_DONE);
	/* As root it becomes nobody; anyone else stays who it is. Never a capability, fds 0-4 only, no environment. */
	snprintf(expect, sizeof(expect), "%u %u CapEff:\t0000000000000000 5 0 1\n",
		 geteuid() == 0 ? 65534 : (unsigned)getuid(), geteuid() == 0 ? 65534 : (unsigned)getgid());
	ck_assert_str_eq(r.out, expect);
	sandbox_result_free(&r);
}
END_TEST

/* Never as root: a child asked to run as uid 0 refuses before it runs anything. */
START_TEST(test_never_root)
{
	struct sandbox_limits l = base;
	struct sandbox_result r;

	if (geteuid() != 0)
		return;
	l.uid = 0, l.gid = 0;
	r = run(l, whoami);
	ck_assert_int_eq(r.end, SANDBOX_FAILED);
	ck_assert_int_eq(r.code, 111);
	ck_assert_uint_eq(r.len, 0);
	ck_assert_uint_eq(r.confined, 0);
	sandbox_result_free(&r);
}
END_TEST

static const char *secret_path;

/* Whether a status line of /proc/self/status reads as expected. */
static bool status_has(const char *line)
{
	char status[8192];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, status, sizeof(status) - 1) : -1;

	close(fd);
	status[n > 0 ? n : 0] = '\0';
	return strstr(status, line) != NULL;
}

/*
 * What an analysis taken over by a crafted core would try, one letter each: "y" when refused as it must be. In
 * order: write core_pattern, read a root 0600 file, an inet socket, a unix socket, signal the parent, chmod, write
 * the input fd, map memory executable, exec, see /proc/sys at all; then its status: seccomp filter mode, no new
 * privileges, an empty bounding set.
 */
static int attacker(int fd, int out, void *arg)
{
	char line[64], *x = MAP_FAILED;
	int n = 0;

	(void) arg;
	line[n++] = open("/proc/sys/kernel/core_pattern", O_WRONLY) < 0 ? 'y' : 'n';
	line[n++] = open(secret_path, O_RDONLY) < 0 ? 'y' : 'n';
	line[n++] = socket(AF_INET, SOCK_STREAM, 0) < 0 ? 'y' : 'n';
	line[n++] = socket(AF_UNIX, SOCK_STREAM, 0) < 0 ? 'y' : 'n';
	line[n++] = kill(getppid(), 0) < 0 ? 'y' : 'n';
	line[n++] = chmod(secret_path, 0666) < 0 ? 'y' : 'n';
	line[n++] = write(fd, "x", 1) < 0 ? 'y' : 'n';
	x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	line[n++] = x == MAP_FAILED ? 'y' : 'n';
	line[n++] = execl("/bin/true", "true", (char *)NULL) < 0 ? 'y' : 'n';
	line[n++] = access("/proc/sys/kernel", F_OK) < 0 ? 'y' : 'n';
	line[n++] = ' ';
	line[n++] = status_has("Seccomp:\t2\n") ? 'y' : 'n';
	line[n++] = status_has("NoNewPrivs:\t1\n") ? 'y' : 'n';
	line[n++] = status_has("CapBnd:\t0000000000000000\n") ? 'y' : 'n';
	return write(out, line, (size_t)n) == n ? 0 : 1;
}

/*
 * As root it runs as the given unprivileged user, in namespaces of its own, read-only, filtered: whatever a
 * crafted core made it try, the machine is out of its reach.
 */
START_TEST(test_attacker_refused)
{
	struct sandbox_result r;
	char dir[256], secret[300], confined[128];
	int fd, in;

	if (geteuid() != 0)
		return;
	unit_tmpdir(dir, sizeof(dir));
	chmod(dir, 0755);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	fd = open(secret, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	secret_path = secret;
	/* The input is opened for writing here: the filter, not the mode, keeps it from being written. */
	in = open(secret, O_RDWR);
	ck_assert_int_ge(sandbox_run(&base, in, attacker, NULL, &r), 0);
	close(in);
	ck_assert_int_eq(r.end, SANDBOX_DONE);
	sandbox_confinement_text(r.confined, confined, sizeof(confined));
	ck_assert_str_eq(confined, "unprivileged,namespaces,read-only,seccomp");
	ck_assert_str_eq(r.out, "yyyyyyyyyy yyy");
	sandbox_result_free(&r);
	ck_assert_int_eq(access(secret, F_OK), 0);
	unit_rmtree(dir);
}
END_TEST

/*
 * In the root it is given, one letter each, "y" as it must be: its own file is read; the host's /etc/passwd, an
 * absolute symlink to it, a relative one climbing out, ".." from its root and /proc/self/root all stay beneath it
 * (what they name there does not exist); fd 5 (the root) is gone; then the filter: no file opened for writing.
 */
static int in_root(int fd, int out, void *arg)
{
	char line[16], buf[8] = "";
	int n = 0, gone = fcntl(SANDBOX_ROOT_FD, F_GETFD) < 0, f = open("/inside", O_RDONLY);

	(void) fd, (void) arg;
	line[n++] = f >= 0 && read(f, buf, sizeof(buf)) == 2 && memcmp(buf, "in", 2) == 0 ? 'y' : 'n';
	line[n++] = open("/etc/passwd", O_RDONLY) < 0 ? 'y' : 'n';
	line[n++] = open("/abs", O_RDONLY) < 0 && errno == ENOENT ? 'y' : 'n';
	line[n++] = open("/climb", O_RDONLY) < 0 && errno == ENOENT ? 'y' : 'n';
	line[n++] = open("/../../etc/passwd", O_RDONLY) < 0 ? 'y' : 'n';
	line[n++] = open("/proc/self/root/etc/passwd", O_RDONLY) < 0 ? 'y' : 'n';
	line[n++] = gone ? 'y' : 'n';
	line[n++] = open("/inside", O_WRONLY) < 0 ? 'y' : 'n';
	return write(out, line, (size_t)n) == n ? 0 : 1;
}

START_TEST(test_given_root)
{
	struct sandbox_limits l = base;
	struct sandbox_result r;
	char dir[256], path[300], confined[128];
	int fd, in;

	unit_tmpdir(dir, sizeof(dir));
	chmod(dir, 0755);
	snprintf(path, sizeof(path), "%s/inside", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	ck_assert_int_eq(write(fd, "in", 2), 2);
	close(fd);
	snprintf(path, sizeof(path), "%s/abs", dir);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof(path), "%s/climb", dir);
	ck_assert_int_eq(symlink("../../../../../../etc/passwd", path), 0);
	l.root_fd = open(dir, O_PATH | O_DIRECTORY);
	in = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(sandbox_run(&l, in, in_root, NULL, &r), 0);
	close(in);
	close(l.root_fd);
	ck_assert_int_eq(r.end, SANDBOX_DONE);
	sandbox_confinement_text(r.confined, confined, sizeof(confined));
	/* Not read-only: the root given is another mount namespace's tree; the filter keeps it unwritten. */
	ck_assert_str_eq(confined, "unprivileged,namespaces,seccomp,process-root");
	ck_assert_str_eq(r.out, "yyyyyyyy");
	sandbox_result_free(&r);
	unit_rmtree(dir);
}
END_TEST

/*
 * With files handed (the modules a crashed process had mapped), one letter each, "y" as it must be: the two handed
 * root 0600 files are read at SANDBOX_FIRST_FD on, the next fd is not open, a root 0600 file not handed cannot be
 * opened, nor a handed one again by /proc/self/fd, nor written; the input is still fd 3 and nothing else is open.
 */
static int with_handed(int fd, int out, void *arg)
{
	const char *other = arg;
	char line[16], buf[8] = "", self[64];
	int n = 0, first = SANDBOX_FIRST_FD;

	(void) fd;
	line[n++] = pread(first, buf, 2, 0) == 2 && memcmp(buf, "h0", 2) == 0 ? 'y' : 'n';
	line[n++] = pread(first + 1, buf, 2, 0) == 2 && memcmp(buf, "h1", 2) == 0 ? 'y' : 'n';
	line[n++] = fcntl(first + 2, F_GETFD) < 0 ? 'y' : 'n';
	line[n++] = open(other, O_RDONLY) < 0 ? 'y' : 'n';
	snprintf(self, sizeof(self), "/proc/self/fd/%d", first);
	line[n++] = open(self, O_RDONLY) < 0 ? 'y' : 'n';
	line[n++] = write(first, "x", 1) < 0 ? 'y' : 'n';
	line[n++] = fcntl(SANDBOX_ROOT_FD, F_GETFD) < 0 ? 'y' : 'n';
	line[n++] = fcntl(SANDBOX_IN_FD, F_GETFD) >= 0 ? 'y' : 'n';
	return write(out, line, (size_t)n) == n ? 0 : 1;
}

START_TEST(test_handed_files)
{
	struct sandbox_limits l = base;
	struct sandbox_result r;
	char dir[256], path[3][300];
	int fds[2], in;

	if (geteuid() != 0)
		return;
	unit_tmpdir(dir, sizeof(dir));
	chmod(dir, 0755);
	for (int i = 0; i < 3; i++) {
		int fd;

		snprintf(path[i], sizeof(path[i]), "%s/root-only.%d", dir, i);
		fd = open(path[i], O_CREAT | O_WRONLY, 0600);
		ck_assert_int_eq(write(fd, i == 0 ? "h0" : i == 1 ? "h1" : "no", 2), 2);
		close(fd);
	}
	/* Handed in an order their own numbers do not have: placed as given. */
	fds[1] = open(path[1], O_RDONLY);
	fds[0] = open(path[0], O_RDONLY);
	l.fds = fds;
	l.n_fds = 2;
	in = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(sandbox_run(&l, in, with_handed, path[2], &r), 0);
	close(in);
	close(fds[0]);
	close(fds[1]);
	ck_assert_int_eq(r.end, SANDBOX_DONE);
	ck_assert_str_eq(r.out, "yyyyyyyy");
	sandbox_result_free(&r);
	unit_rmtree(dir);
}
END_TEST

/* A child that cannot be confined exits before it runs anything (under valgrind: its setrlimit calls fail). */
START_TEST(test_unconfined_never_runs)
{
	struct sandbox_result r = run(base, say_hello);

	ck_assert_int_eq(r.end, SANDBOX_FAILED);
	ck_assert_int_eq(r.code, 111);
	ck_assert_uint_eq(r.len, 0);
	sandbox_result_free(&r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sandbox");
	TCase *t = tcase_create("core");

	tcase_set_timeout(t, 30);
	if (RUNNING_ON_VALGRIND) {
		tcase_add_test(t, test_unconfined_never_runs);
		suite_add_tcase(s, t);
		return s;
	}
	tcase_add_test(t, test_output);
	tcase_add_test(t, test_deadline);
	tcase_add_test(t, test_cpu_limit);
	tcase_add_test(t, test_memory_limit);
	tcase_add_test(t, test_output_bound);
	tcase_add_test(t, test_confined);
	tcase_add_test(t, test_never_root);
	tcase_add_test(t, test_attacker_refused);
	tcase_add_test(t, test_given_root);
	tcase_add_test(t, test_handed_files);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(suite)
