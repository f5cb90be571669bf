/*
 * check_sockproto.c: the exchange on the coredump socket, with the test playing the kernel on a socketpair: its
 * request read whole (a longer, newer one too), refused when it is short, long or lacks what every answer needs;
 * the ack sent as written and the kernel's mark read back, accepted or not; a later kernel's 32-byte request with
 * flags this server does not know, answered with a 16-byte ack of known flags only, which its own checks accept.
 * And peer.c refusing a peer that is not a crashing task (this test itself), and learning a task's killing signal
 * only once its parent has reaped it.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "intake.h"
#include "unit.h"

#define ALL (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT | COREDUMP_WAIT)

static int sv[2];

static void setup(void)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void teardown(void)
{
	close(sv[0]);
	close(sv[1]);
}

/* Sends a request of size bytes (the first 16 the struct, the rest filler), as the kernel would. */
static void kernel_request(uint32_t size, uint64_t mask)
{
	unsigned char buf[512] = { 0 };
	struct coredump_req req = { .size = size, .size_ack = COREDUMP_ACK_SIZE_VER0, .mask = mask };
	size_t n = size < sizeof(req) ? sizeof(req) : size > sizeof(buf) ? sizeof(buf) : size;

	memcpy(buf, &req, sizeof(req));
	ck_assert_int_eq(write(sv[1], buf, n), (ssize_t)n);
}

START_TEST(test_request)
{
	struct coredump_req req;

	kernel_request(COREDUMP_REQ_SIZE_VER0, ALL);
	ck_assert_int_eq(sockproto_request(sv[0], &req), 0);
	ck_assert_uint_eq(req.mask, ALL);
	/* A newer kernel's longer request: read whole, its known part kept, the next one still in line. */
	kernel_request(64, ALL);
	kernel_request(COREDUMP_REQ_SIZE_VER0, ALL);
	ck_assert_int_eq(sockproto_request(sv[0], &req), 0);
	ck_assert_int_eq(sockproto_request(sv[0], &req), 0);
}
END_TEST

START_TEST(test_bad_requests)
{
	struct coredump_req req;

	kernel_request(8, ALL);
	ck_assert_int_eq(sockproto_request(sv[0], &req), -EPROTO);
	teardown();
	setup();
	kernel_request(1 << 20, ALL);
	ck_assert_int_eq(sockproto_request(sv[0], &req), -EPROTO);
	teardown();
	setup();
	kernel_request(COREDUMP_REQ_SIZE_VER0, COREDUMP_KERNEL | COREDUMP_REJECT);
	ck_assert_int_eq(sockproto_request(sv[0], &req), -EOPNOTSUPP);
	teardown();
	setup();
	/* Cut: the peer goes away after half a request. */
	ck_assert_int_eq(write(sv[1], "\x10\0\0\0\x10\0", 6), 6);
	close(sv[1]);
	sv[1] = open("/dev/null", O_RDONLY);
	ck_assert_int_lt(sockproto_request(sv[0], &req), 0);
}
END_TEST

START_TEST(test_ack)
{
	struct coredump_ack ack;
	uint32_t mark = COREDUMP_MARK_REQACK, got;

	/* The kernel's mark is there before the ack is read: the exchange is one write and one read each. */
	ck_assert_int_eq(write(sv[1], &mark, sizeof(mark)), 4);
	ck_assert_int_eq(sockproto_ack(sv[0], COREDUMP_KERNEL | COREDUMP_WAIT, &got), 0);
	ck_assert_int_eq(read(sv[1], &ack, sizeof(ack)), (ssize_t)sizeof(ack));
	ck_assert_uint_eq(ack.size, COREDUMP_ACK_SIZE_VER0);
	ck_assert_uint_eq(ack.mask, COREDUMP_KERNEL | COREDUMP_WAIT);
	mark = COREDUMP_MARK_CONFLICTING;
	ck_assert_int_eq(write(sv[1], &mark, sizeof(mark)), 4);
	ck_assert_int_eq(sockproto_ack(sv[0], COREDUMP_REJECT | COREDUMP_KERNEL, &got), -EPROTO);
	ck_assert_uint_eq(got, COREDUMP_MARK_CONFLICTING);
	ck_assert_str_eq(sockproto_mark_to_string(got), "conflicting flags");
	ck_assert_str_eq(sockproto_mark_to_string(UINT32_MAX), "no mark");
}
END_TEST

/* Flags a later kernel's request offers (include/uapi/linux/coredump.h, queued: records, sparse, memory types). */
#define LATER_FLAGS ((1ULL << 4) | (1ULL << 5) | (1ULL << 6))
#define LATER_SIZE 32u

/*
 * A later kernel, in a child: a 32-byte request offering more flags and a 32-byte ack, then the kernel's own checks
 * of the ack (fs/coredump.c, coredump_sock_request): its size peeked and bounded by VER0 and its own, that many
 * bytes read, no flag it did not offer, exactly one of KERNEL, USERSPACE and REJECT, no spare. It sends the mark
 * and exits with it.
 */
static pid_t later_kernel(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		unsigned char req[LATER_SIZE] = { 0 }, ack[LATER_SIZE] = { 0 };
		struct coredump_req head = { .size = LATER_SIZE, .size_ack = LATER_SIZE, .mask = ALL | LATER_FLAGS };
		struct coredump_ack a;
		uint32_t usize = 0, mark;
		int kinds;

		memcpy(req, &head, sizeof(head));
		if (write(sv[1], req, sizeof(req)) != (ssize_t)sizeof(req) ||
		    recv(sv[1], &usize, sizeof(usize), MSG_PEEK | MSG_WAITALL) != (ssize_t)sizeof(usize))
			_exit(99);
		if (usize < COREDUMP_ACK_SIZE_VER0)
			mark = COREDUMP_MARK_MINSIZE;
		else if (usize > LATER_SIZE)
			mark = COREDUMP_MARK_MAXSIZE;
		else if (recv(sv[1], ack, usize, MSG_WAITALL) != (ssize_t)usize)
			_exit(98);
		else {
			memcpy(&a, ack, sizeof(a));
			kinds = !!(a.mask & COREDUMP_KERNEL) + !!(a.mask & COREDUMP_USERSPACE) + !!(a.mask & COREDUMP_REJECT);
			mark = a.mask & ~head.mask ? COREDUMP_MARK_UNSUPPORTED : kinds != 1 ? COREDUMP_MARK_CONFLICTING :
			       a.spare ? COREDUMP_MARK_UNSUPPORTED : COREDUMP_MARK_REQACK;
		}
		_exit(write(sv[1], &mark, sizeof(mark)) == (ssize_t)sizeof(mark) ? (int)mark : 97);
	}
	return pid;
}

/* Against a later kernel: its longer request read whole, and each answer taken as it checks them. */
START_TEST(test_later_kernel)
{
	static const uint64_t answers[] = { COREDUMP_KERNEL | COREDUMP_WAIT, COREDUMP_REJECT };
	struct coredump_req req;
	uint32_t mark;

	for (size_t i = 0; i < ELEMENTSOF(answers); i++) {
		pid_t pid = later_kernel();
		int status;

		ck_assert_int_eq(sockproto_request(sv[0], &req), 0);
		ck_assert_uint_eq(req.size, LATER_SIZE);
		ck_assert_uint_eq(req.mask & LATER_FLAGS, LATER_FLAGS);
		/* Even asked to, the server sends no flag it does not know: this kernel would refuse 1 << 7, not offered. */
		ck_assert_int_eq(sockproto_ack(sv[0], answers[i] | (1ULL << 7), &mark), 0);
		ck_assert_uint_eq(mark, COREDUMP_MARK_REQACK);
		status = unit_reap(pid);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), COREDUMP_MARK_REQACK);
	}
}
END_TEST

/* A request whose ack size is below VER0's: no ack this server sends could be taken. */
START_TEST(test_small_ack_size)
{
	struct coredump_req req = { .size = COREDUMP_REQ_SIZE_VER0, .size_ack = 8, .mask = ALL };

	ck_assert_int_eq(write(sv[1], &req, sizeof(req)), (ssize_t)sizeof(req));
	ck_assert_int_eq(sockproto_request(sv[0], &req), -EPROTO);
}
END_TEST

/* A peer that is a live process, not one dumping core (this test): refused, as anything on the socket but a crash. */
START_TEST(test_peer_not_a_crash)
{
	struct peer p;
	int r = peer_identify(sv[0], &p);

	ck_assert_int_lt(r, 0);
	peer_close(&p);
}
END_TEST

/*
 * The signal that killed a task, learned from its pidfd: the task dies at once, but its parent reaps it only 200 ms
 * later, and pidfs has no exit status until then. That wait is the one a crash refused before its dump waits
 * (sockmode.c); the signal comes after it, not a guess of none in between. (Linux 6.18 answers the ioctl without
 * the status meanwhile; the ESRCH case peer.c also handles did not occur here.)
 */
START_TEST(test_exit_signal_after_reap)
{
	int pp[2], status;
	pid_t parent, pid = 0;
	struct peer p = { .pidfd = -1 };

	ck_assert_int_eq(pipe(pp), 0);
	parent = fork();
	ck_assert_int_ge(parent, 0);
	if (parent == 0) {
		const struct timespec later = { 0, 200000000 };
		pid_t child = fork();

		if (child == 0) {
			(void) raise(SIGUSR1);
			_exit(0);
		}
		(void) write(pp[1], &child, sizeof(child));
		nanosleep(&later, NULL);
		(void) waitpid(child, NULL, 0);
		_exit(0);
	}
	ck_assert_int_eq(read(pp[0], &pid, sizeof(pid)), (ssize_t)sizeof(pid));
	/* Gone and reaped already would make this test prove nothing: it has 200 ms to get here. */
	p.pidfd = unit_pidfd(pid, "check_sockproto");
	if (p.pidfd >= 0) {
		ck_assert_int_eq(peer_exit_signal(&p, 1000), SIGUSR1);
		peer_close(&p);
	}
	ck_assert_int_eq(waitpid(parent, &status, 0), parent);
	close(pp[0]);
	close(pp[1]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sockproto");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_request);
	tcase_add_test(t, test_bad_requests);
	tcase_add_test(t, test_ack);
	tcase_add_test(t, test_later_kernel);
	tcase_add_test(t, test_small_ack_size);
	tcase_add_test(t, test_peer_not_a_crash);
	tcase_add_test(t, test_exit_signal_after_reap);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(suite)
