/*
 * check_capture.c: a crash's one way from admission to its entry (capture.c), driven as each mode drives it, with
 * the input a pipe (pipe mode) or one end of a socketpair (socket mode, after its decision before the dump), into a
 * temporary directory: the core stored whole and named for the crash, the input released, the entry written (to a
 * file standing in for the kernel log); a second crash of the same program over the rate limit suppressed and
 * released before a byte is read; and one over RLIMIT_CORE skipped. Needs root: the directory must be root's.
 */
#include <dirent.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <time.h>

#include "flow.h"
#include "producer.h"
#include "report.h"
#include "unit.h"

#define MIB (1024 * 1024)

static char dir[256], conf[300], cores[300], kmsg[300];

static void setup(void)
{
	FILE *f;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(data_prepare(DATA_RANDOM), 0);
	unit_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(conf, sizeof(conf), "%s/c.conf", dir);
	snprintf(cores, sizeof(cores), "%s/cores", dir);
	snprintf(kmsg, sizeof(kmsg), "%s/kmsg", dir);
	f = fopen(conf, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[Coresink]\nDirectory=%s\nCompress=no\nStackTrace=no\nKeepFree=0\nRateLimitBurst=1\n"
		"RateLimitGlobalBurst=100\n", cores);
	fclose(f);
	close(open(kmsg, O_CREAT | O_WRONLY, 0600));
	/* No journald here: the entry goes to the kernel log's stand-in. */
	journal_test_redirect("/nonexistent/socket", kmsg);
}

static void teardown(void)
{
	if (geteuid() != 0)
		return;
	journal_test_redirect(NULL, NULL);
	unit_rmtree(dir);
}

/* A crash as the kernel would describe it, of the program comm, coming in on in. */
static void begin(struct crash *cr, int in, const char *comm, uint64_t rlimit)
{
	crash_init(cr, in, conf, true);
	cr->given.k = (struct kargs) { .pid = getpid(), .uid = 0, .gid = 0, .signal = 11, .time = (uint64_t)time(NULL),
				 .rlimit = rlimit, .hostname = "unit", .comm = comm, .dumpmode = SUID_DUMP_ROOT,
				 .pidfd = -1 };
	crash_read_process(cr);
	/* Untrusted without a pidfd or a dumping thread: the rate limit keys on the comm then. */
}

/* The one file the directory holds (the ledger aside), opened; -1 when there is none. */
static int stored(const char *comm)
{
	char path[600], pattern[64];
	struct dirent *e;
	DIR *d = opendir(cores);
	int fd = -1;

	if (!d)
		return -1;
	snprintf(pattern, sizeof(pattern), "core.%s.", comm);
	while ((e = readdir(d)))
		if (strncmp(e->d_name, pattern, strlen(pattern)) == 0) {
			snprintf(path, sizeof(path), "%s/%s", cores, e->d_name);
			fd = open(path, O_RDONLY);
		}
	closedir(d);
	return fd;
}

static bool logged(const char *what)
{
	char buf[8192];
	int fd = open(kmsg, O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strstr(buf, what) != NULL;
}

/* Pipe mode's way: admitted, stored from the pipe, released, logged; the next one of the same comm suppressed. */
START_TEST(test_pipe)
{
	static struct crash cr;
	int p[2], fd;
	pid_t pid;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(pipe(p), 0);
	pid = producer_start(p, 3 * MIB, WRITE_4K);
	close(p[1]);
	begin(&cr, p[0], "piped", UINT64_MAX);
	ck_assert_int_eq(crash_admit(&cr), 1);
	ck_assert_int_eq(crash_store(&cr), 0);
	ck_assert_int_eq(cr.given.in, -1);
	crash_finish(&cr);
	ck_assert_int_eq(unit_reap(pid), 0);
	ck_assert_int_eq(cr.o.result, RESULT_STORED);
	fd = stored("piped");
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(producer_prefix(fd), 3 * MIB);
	close(fd);
	ck_assert(logged("Process"));
	ck_assert(logged("3145728 bytes stored"));
	/* The second crash of "piped": over RateLimitBurst=1, let go before a byte is read. */
	ck_assert_int_eq(pipe(p), 0);
	begin(&cr, p[0], "piped", UINT64_MAX);
	ck_assert_int_eq(crash_admit(&cr), 0);
	ck_assert_int_eq(cr.o.result, RESULT_SUPPRESSED);
	crash_release(&cr);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(write(p[1], "x", 1), -1);
	ck_assert_int_eq(errno, EPIPE);
	close(p[1]);
	crash_finish(&cr);
	ck_assert(logged("crash-rate limit"));
}
END_TEST

/* Socket mode's way: admitted and room found before the dump, then the core from the connection. */
START_TEST(test_socket)
{
	static struct crash cr;
	struct store_file f;
	int sv[2], fd;
	pid_t pid;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	begin(&cr, sv[0], "socketed", UINT64_MAX);
	cr.o.socket = true;
	ck_assert_int_eq(crash_admit(&cr), 1);
	ck_assert_int_eq(crash_room(&cr, &f), 1);
	pid = producer_start(sv, 2 * MIB, WRITE_4K);
	close(sv[1]);
	ck_assert_int_eq(crash_take(&cr, &f), 0);
	crash_finish(&cr);
	ck_assert_int_eq(unit_reap(pid), 0);
	ck_assert_int_eq(cr.given.in, -1);
	ck_assert_int_eq(cr.o.result, RESULT_STORED);
	fd = stored("socketed");
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(producer_prefix(fd), 2 * MIB);
	close(fd);
}
END_TEST

/* Below a page of RLIMIT_CORE: skipped without touching the directory. */
START_TEST(test_rlimit)
{
	static struct crash cr;
	int p[2];

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(pipe(p), 0);
	begin(&cr, p[0], "limited", 0);
	ck_assert_int_eq(crash_admit(&cr), 0);
	ck_assert_int_eq(cr.o.result, RESULT_SKIPPED);
	crash_finish(&cr);
	close(p[1]);
	ck_assert_int_lt(stored("limited"), 0);
	ck_assert(logged("RLIMIT_CORE is 0"));
}
END_TEST

/* What becomes of a core once copied: the pure decision, on its table. */
START_TEST(test_fate)
{
	static const struct {
		bool failed;
		enum result result;
		bool compressed;
		enum storage storage;
		bool compress;
		uint64_t bytes;
		enum fate fate;
	} t[] = {
		{ true, RESULT_FAILED, false, STORAGE_EXTERNAL, true, 0, FATE_DISCARD },
		{ false, RESULT_DISCARDED, false, STORAGE_EXTERNAL, true, 100, FATE_DISCARD },
		{ false, RESULT_TRUNCATED, true, STORAGE_EXTERNAL, true, 100, FATE_PUBLISH_COMPRESSED },
		{ false, RESULT_STORED, false, STORAGE_EXTERNAL, true, 100, FATE_COMPRESS },
		{ false, RESULT_STORED, false, STORAGE_EXTERNAL, false, 100, FATE_PUBLISH_RAW },
		{ false, RESULT_TRUNCATED, false, STORAGE_EXTERNAL, false, 100, FATE_PUBLISH_RAW },
		{ false, RESULT_STORED, false, STORAGE_JOURNAL, true, 100, FATE_HOLD_JOURNAL },
		{ false, RESULT_STORED, false, STORAGE_JOURNAL, true, 2000, FATE_COMPRESS },   /* over JournalSizeMax */
		{ false, RESULT_STORED, false, STORAGE_NONE, true, 100, FATE_HOLD_UNPUBLISHED },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_int_eq(crash_fate(t[i].failed, t[i].result, t[i].compressed, t[i].storage, t[i].compress,
					    t[i].bytes, 1000), t[i].fate);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("capture");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 30);
	tcase_add_test(t, test_pipe);
	tcase_add_test(t, test_socket);
	tcase_add_test(t, test_rlimit);
	tcase_add_test(t, test_fate);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(suite)
