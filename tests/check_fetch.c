/*
 * check_fetch.c: the fetch step, as fetch_run() runs it and confine_fetch() confines it (fetchprobe stands in for
 * its program): as coresink-debuginfod, it cannot read the core (a root 0640 file), the crashing process's /proc or
 * a root 0600 file, and writes nothing but its cache; it can reach the network, and nothing else a hostile server's
 * answer could use: no unix socket (journald's, D-Bus's, an abstract one; nor by a pair of them, whose datagram
 * kind would send to the test's listeners by address), no socket given to it, no System V IPC of the host's, no user
 * namespace, no session or process of its own out of the deadline's kill, no signal to another process. As root,
 * with that user (t-debuginfod runs the real step with user namespaces off). Then the needs of the analysis's first
 * pass as the handler reads them, and the cache's checks and how its files are opened (beneath it, no link, a regular
 * file, with openat2() refused as coresink.service's RestrictSUIDSGID= refuses it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "intake.h"
#include "sandbox.h"
#include "unit.h"

START_TEST(test_confined)
{
	char dir[] = "/var/tmp/check-fetch.XXXXXX", cache[256], core[256], secret[256], said[4096], args[1024];
	char probe[4096];
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	struct fetch_job j = { .timeout_ms = 10000, .max_use = 1 << 20 };
	struct fetch_need need = { "debuginfo", "0123456789abcdef", "probe" };
	struct sockaddr_un lp = { .sun_family = AF_UNIX }, la = { .sun_family = AF_UNIX };
	const char abstract[] = "\0coresink-fetchprobe-listen";
	pid_t victim;
	int lfd, fd, dpath, dabs;
	char got[64];
	ssize_t n;

	/* The users are made by tests/e2e/run.sh, which runs this suite again (t-debuginfod): there it must run. */
	if (geteuid() != 0 || creds_system_user(FETCH_USER, &j.uid, &j.gid) < 0) {
		ck_assert_msg(!getenv("CORESINK_TEST_NEED_USERS"), "not root, or no user %s", FETCH_USER);
		fprintf(stderr, "fetch: not root, or no user %s: confinement not checked\n", FETCH_USER);
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	(void) snprintf(cache, sizeof(cache), "%s/cache", dir);
	(void) snprintf(core, sizeof(core), "%s/core.x.1.20260101T000000Z", dir);
	(void) snprintf(secret, sizeof(secret), "%s/secret", dir);
	ck_assert_int_eq(mkdir(cache, 0755), 0);
	ck_assert_int_eq(chown(cache, j.uid, j.gid), 0);
	fd = open(core, O_WRONLY | O_CREAT, 0640);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = open(secret, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* Two datagram listeners of the host's, as journald's socket and /dev/log are: by path (writable by all), abstract. */
	(void) snprintf(lp.sun_path, sizeof(lp.sun_path), "%s/listen.sock", dir);
	memcpy(la.sun_path, abstract, sizeof(abstract));
	dpath = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	dabs = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(bind(dpath, (struct sockaddr *)&lp, sizeof(lp)), 0);
	ck_assert_int_eq(chmod(lp.sun_path, 0777), 0);
	ck_assert_int_eq(bind(dabs, (struct sockaddr *)&la,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + sizeof(abstract) - 1)), 0);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(lfd, 4), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&a, &alen), 0);
	victim = fork();
	if (victim == 0) {
		pause();
		_exit(0);
	}
	(void) snprintf(args, sizeof(args), "%s %d %s %d %s", core, (int)victim, secret, ntohs(a.sin_port), lp.sun_path);
	n = readlink("/proc/self/exe", probe, sizeof(probe) - 32);
	ck_assert_int_gt(n, 0);
	probe[n] = '\0';
	(void) snprintf(strrchr(probe, '/') + 1, 32, "fetchprobe");
	j.handler = probe, j.cache = cache, j.urls = args, j.needs = &need, j.n = 1;

	ck_assert_int_eq(fetch_run(&j, said, sizeof(said)), 0);
	fprintf(stderr, "fetch: %s\n", said);
	ck_assert_msg(strstr(said, "confined=") && (atoi(strstr(said, "confined=") + 9) & 7) == 7,
		      "unprivileged, in namespaces, read-only: %s", said);
	ck_assert_msg(strstr(said, "core=EACCES"), "the core: %s", said);
	ck_assert_msg(strstr(said, "proc=E") && !strstr(said, "proc=ok"), "the crash's /proc: %s", said);
	ck_assert_msg(strstr(said, "secret=EACCES"), "a root 0600 file: %s", said);
	ck_assert_msg(strstr(said, "cache-write=ok"), "its cache: %s", said);
	ck_assert_msg(strstr(said, "tmp-write=EROFS"), "anywhere else: %s", said);
	ck_assert_msg(strstr(said, "net=ok"), "the network: %s", said);
	ck_assert_msg(strstr(said, "confined=15"), "and seccomp: %s", said);
	ck_assert_msg(strstr(said, "unix=EPERM") && strstr(said, "abstract=E") && !strstr(said, "abstract=ok"),
		      "no unix socket: %s", said);
	ck_assert_msg(strstr(said, "sysv-shm=E") && !strstr(said, "sysv-shm=ok"), "no System V IPC: %s", said);
	ck_assert_msg(strstr(said, "userns=EPERM"), "no user namespace: %s", said);
	ck_assert_msg(strstr(said, "setsid=EPERM"), "no session of its own: %s", said);
	ck_assert_msg(strstr(said, "kill-other=EPERM"), "no signal to another: %s", said);
	ck_assert_msg(strstr(said, "fork=EPERM"), "no process of its own: %s", said);
	ck_assert_msg(strstr(said, "inherited-sockets=0"), "no socket given: %s", said);
	ck_assert_msg(strstr(said, "sp-dgram=EPERM") && strstr(said, "sp-seqpacket=EPERM"),
		      "no pair of unix sockets but a stream's: %s", said);
	ck_assert_msg(strstr(said, "sp-stream=ok") && !strstr(said, "sp-stream-sendto-path=ok") &&
		      !strstr(said, "sp-stream-sendto-abstract=ok") && !strstr(said, "sp-stream-connect=ok"),
		      "libcurl's stream pair, which reaches no address: %s", said);
	ck_assert_msg(recv(dpath, got, sizeof(got), MSG_DONTWAIT) < 0 && errno == EAGAIN, "nothing came by path");
	ck_assert_msg(recv(dabs, got, sizeof(got), MSG_DONTWAIT) < 0 && errno == EAGAIN, "nothing came by name");
	close(dpath), close(dabs);
	(void) unlink(lp.sun_path);
	kill(victim, SIGKILL);
	unit_reap(victim);
	close(lfd);
	(void) unlink(core), (void) unlink(secret);
	(void) snprintf(args, sizeof(args), "%s/written", cache);
	(void) unlink(args);
	(void) rmdir(cache), (void) rmdir(dir);
}
END_TEST

START_TEST(test_needs)
{
	struct fetch_need n[4];
	int k = fetch_parse_needs("debuginfo 0123abcd prog\nexecutable 89abcdef libx.so.1\n"
				  "junk line\ndebuginfo zz notahex\ndebuginfo 4567 name with blanks\n", n, 4);

	ck_assert_int_eq(k, 3);
	ck_assert_str_eq(n[0].kind, "debuginfo");
	ck_assert_str_eq(n[0].id, "0123abcd");
	ck_assert_str_eq(n[1].kind, "executable");
	ck_assert_str_eq(n[1].name, "libx.so.1");
	ck_assert_str_eq(n[2].name, "name with blanks");
	ck_assert_int_eq(fetch_parse_needs("debuginfo 01 a\ndebuginfo 02 b\n", n, 1), 1);
}
END_TEST

START_TEST(test_have)
{
	char dir[] = "/tmp/check-fetch.XXXXXX", path[256];
	struct fetch_need d = { "debuginfo", "0123456789", "x" }, e = { "executable", "0123456789", "x" };
	int cache, fd;
	uint64_t now = (uint64_t)time(NULL);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	cache = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert(!fetch_have(cache, &d, now));
	(void) snprintf(path, sizeof(path), "%s/.build-id", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	(void) snprintf(path, sizeof(path), "%s/.build-id/01", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	(void) snprintf(path, sizeof(path), "%s/.build-id/01/23456789.debug", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	close(fd);
	ck_assert(fetch_have(cache, &d, now));
	ck_assert(!fetch_have(cache, &e, now));
	/* A miss is remembered for a while, then asked again. */
	(void) snprintf(path, sizeof(path), "%s/.build-id/01/23456789.miss", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	close(fd);
	ck_assert(fetch_have(cache, &e, now));
	ck_assert(!fetch_have(cache, &e, now + FETCH_MISS_SECONDS + 1));
	close(cache);
	(void) unlink(path);
	(void) snprintf(path, sizeof(path), "%s/.build-id/01/23456789.debug", dir);
	(void) unlink(path);
	(void) snprintf(path, sizeof(path), "%s/.build-id/01", dir);
	(void) rmdir(path);
	(void) snprintf(path, sizeof(path), "%s/.build-id", dir);
	(void) rmdir(path);
	(void) rmdir(dir);
}
END_TEST

/* mkdir -p of a path beneath dir, one level at a time. */
static void mkpath(const char *dir, const char *rel)
{
	char path[512];

	(void) snprintf(path, sizeof(path), "%s/%s", dir, rel);
	ck_assert_int_eq(mkdir(path, 0700), 0);
}

/*
 * fetch_open(): the cache's files, each opened beneath the cache without following a link, nothing but a regular file
 * taken, and what the cache has but could not be opened counted; also where openat2() is refused, as systemd's
 * RestrictSUIDSGID= (coresink.service) refuses it to the whole server: in a child, under that rule.
 */
static void open_cases(const char *dir)
{
	struct fetch_need n[4] = { { "debuginfo", "aa11", "good" }, { "debuginfo", "bb22", "linked" },
				   { "debuginfo", "cc33", "fifo" }, { "debuginfo", "dd44", "absent" } };
	struct fetch_files ff;
	int cache = open(dir, O_RDONLY | O_DIRECTORY);

	ck_assert_int_eq(fetch_open(cache, n, 4, &ff), 1);
	ck_assert_str_eq(ff.f[0].id, "aa11");
	ck_assert(ff.f[0].debug);
	/* The link and the FIFO are counted; the file that is not there is not. */
	ck_assert_int_eq(ff.unopened, 2);
	ck_assert(ff.unopened_error == -ELOOP || ff.unopened_error == -ENOTDIR);
	fetch_files_close(&ff);
	close(cache);
}

START_TEST(test_open)
{
	char dir[] = "/tmp/check-fetch.XXXXXX", path[512];
	scmp_filter_ctx f;
	int status;
	pid_t pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	mkpath(dir, ".build-id");
	mkpath(dir, ".build-id/aa");
	mkpath(dir, ".build-id/cc");
	(void) snprintf(path, sizeof(path), "%s/.build-id/aa/11.debug", dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	/* A link for a directory on the way (to aa, where a file of that name would be) and a FIFO at the end. */
	(void) snprintf(path, sizeof(path), "%s/.build-id/bb", dir);
	ck_assert_int_eq(symlink("aa", path), 0);
	(void) snprintf(path, sizeof(path), "%s/.build-id/aa/22.debug", dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	(void) snprintf(path, sizeof(path), "%s/.build-id/cc/33.debug", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	open_cases(dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		f = seccomp_init(SCMP_ACT_ALLOW);
		if (!f || seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat2), 0) || seccomp_load(f))
			_exit(2);
		open_cases(dir);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	(void) snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

static Suite *fetch_suite(void)
{
	Suite *s = suite_create("fetch");
	TCase *tc = tcase_create("fetch");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_confined);
	tcase_add_test(tc, test_needs);
	tcase_add_test(tc, test_have);
	tcase_add_test(tc, test_open);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(fetch_suite)
