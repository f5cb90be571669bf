/*
 * check_journal.c: the kernel-log fallback record. The real journald and /dev/kmsg are exercised end to end
 * (tests/e2e); here the fallback writes to a file so its exact bytes can be read back.
 */
#include <endian.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>

#include "report.h"
#include "unit.h"

static char dir[256], kmsg[512];

static void setup(void)
{
	unit_tmpdir(dir, sizeof(dir));
	snprintf(kmsg, sizeof(kmsg), "%s/kmsg", dir);
	journal_test_redirect("/nonexistent/socket", kmsg);
	close(open(kmsg, O_CREAT | O_WRONLY, 0600));
}

static void teardown(void)
{
	journal_test_redirect(NULL, NULL);
	unit_rmtree(dir);
}

static void read_back(char *buf, size_t len)
{
	int fd = open(kmsg, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, len - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	close(fd);
}

START_TEST(test_fallback_to_kmsg)
{
	struct fields f;
	char buf[2048], expect[128];

	fields_init(&f, LOG_CRIT);
	fields_add(&f, "MESSAGE=Process %d (%s) dumped core", 7, "evil\nMESSAGE=forged\x1b");
	fields_add(&f, "COREDUMP_PID=7");
	ck_assert_int_eq(journal_send(&f), 1);
	fields_free(&f);
	read_back(buf, sizeof(buf));
	snprintf(expect, sizeof(expect), "<2>coresink[%d]: Process 7 (evil\\nMESSAGE=forged\\x1b) dumped core\n",
		 (int)getpid());
	ck_assert_str_eq(buf, expect);
}
END_TEST

/*
 * A dead handler's entry, looked for in the kernel log by its handler's pid and its crash's: the early
 * "processing..." line is not it, nor another handler's line or another crash's.
 */
START_TEST(test_entry_found_in_kmsg)
{
	struct fields f;

	fields_init(&f, LOG_INFO);
	fields_add(&f, "MESSAGE=Process 7 (x) of user 0 terminated abnormally with signal 11/SIGSEGV, processing...");
	ck_assert_int_eq(journal_send(&f), 1);
	fields_free(&f);
	ck_assert_int_eq(kmsg_find_entry(getpid(), 7), 0);
	fields_init(&f, LOG_CRIT);
	fields_add(&f, "MESSAGE=Process 7 (x) of user 0 dumped core (SIGSEGV); 4096 bytes stored in /x.");
	ck_assert_int_eq(journal_send(&f), 1);
	fields_free(&f);
	ck_assert_int_eq(kmsg_find_entry(getpid(), 7), 1);
	ck_assert_int_eq(kmsg_find_entry(getpid() + 1, 7), 0);
	ck_assert_int_eq(kmsg_find_entry(getpid(), 70), 0);
}
END_TEST

START_TEST(test_fields_bounded)
{
	struct fields f;

	fields_init(&f, LOG_INFO);
	for (int i = 0; i < 2 * FIELDS_MAX; i++)
		fields_add(&f, "X%d=%d", i, i);
	ck_assert_uint_eq(f.n, FIELDS_MAX);
	ck_assert_ptr_null(f.message);
	fields_free(&f);
	ck_assert_uint_eq(f.n, 0);
}
END_TEST

/* A journald stand-in: a datagram socket that receives credentials, as journald's does (SO_PASSCRED). */
static int listener(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), one = 1;

	ck_assert_int_ge(fd, 0);
	ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)), 0);
	return fd;
}

/* Receives one entry: its bytes (from the datagram, or the memfd passed with it) and the credentials it came with. */
static size_t receive(int fd, char *buf, size_t len, struct ucred *uc)
{
	char control[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			    .msg_controllen = sizeof(control) };
	ssize_t n = recvmsg(fd, &m, 0);
	int passed = -1;

	ck_assert_int_ge(n, 0);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_type == SCM_CREDENTIALS)
			memcpy(uc, CMSG_DATA(c), sizeof(*uc));
		if (c->cmsg_type == SCM_RIGHTS)
			memcpy(&passed, CMSG_DATA(c), sizeof(int));
	}
	if (passed >= 0) {
		/* A memfd must come sealed: journald takes no other from a user. */
		ck_assert_int_eq(fcntl(passed, F_GET_SEALS) & F_SEAL_WRITE, F_SEAL_WRITE);
		n = pread(passed, buf, len, 0);
		close(passed);
	}
	return (size_t)n;
}

/* The value of field name in the binary-safe native form: NAME\n le64 value \n. */
static bool native_field(const char *buf, size_t len, const char *name, const char *want)
{
	size_t nl = strlen(name), wl = strlen(want);

	for (size_t i = 0; i + nl + 9 <= len; i++) {
		uint64_t vl;

		if ((i == 0 || buf[i - 1] == '\n') && memcmp(buf + i, name, nl) == 0 && buf[i + nl] == '\n') {
			memcpy(&vl, buf + i + nl + 1, 8);
			return le64toh(vl) == wl && memcmp(buf + i + nl + 9, want, wl) == 0;
		}
	}
	return false;
}

/*
 * An entry sent as a user reaches the socket with that user's uid and gid and the handler's own pid, no child
 * involved; the fields come whole, newlines and all; and an entry larger than a datagram comes in a sealed memfd.
 */
START_TEST(test_send_as_user)
{
	char sock[512], *buf, *big;
	struct fields f;
	struct ucred uc = { 0 };
	size_t n;
	int fd;

	if (geteuid() != 0)
		return;   /* naming another uid takes CAP_SETUID */
	buf = malloc(16 << 20);
	big = malloc(6 << 20);
	snprintf(sock, sizeof(sock), "%s/journal.socket", dir);
	fd = listener(sock);
	journal_test_redirect(sock, kmsg);
	fields_init(&f, LOG_CRIT);
	fields_add(&f, "MESSAGE=line one\n\nline three");
	fields_add(&f, "COREDUMP_UID=54321");
	ck_assert_int_eq(journal_send_as(&f, 54321, 54322), 0);
	n = receive(fd, buf, 16 << 20, &uc);
	ck_assert_uint_eq(uc.uid, 54321);
	ck_assert_uint_eq(uc.gid, 54322);
	ck_assert_int_eq(uc.pid, getpid());
	ck_assert(native_field(buf, n, "MESSAGE", "line one\n\nline three"));
	ck_assert(native_field(buf, n, "COREDUMP_UID", "54321"));
	ck_assert(native_field(buf, n, "SYSLOG_IDENTIFIER", "coresink"));
	memset(big, 'x', (6 << 20) - 1);
	big[(6 << 20) - 1] = '\0';
	fields_add(&f, "COREDUMP_PROC_MAPS=%s", big);
	ck_assert_int_eq(journal_send_as(&f, 54321, 54322), 0);
	n = receive(fd, buf, 16 << 20, &uc);
	ck_assert_uint_eq(uc.uid, 54321);
	ck_assert(native_field(buf, n, "COREDUMP_PROC_MAPS", big));
	fields_free(&f);
	close(fd);
	free(buf);
	free(big);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("journal");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fallback_to_kmsg);
	tcase_add_test(tc, test_entry_found_in_kmsg);
	tcase_add_test(tc, test_fields_bounded);
	tcase_add_test(tc, test_send_as_user);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
