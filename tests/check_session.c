/*
 * check_session.c: two captures sharing one ledger in a real directory, as concurrent handlers do. The second is
 * this test's parent process as far as the ledger knows (a live process, another identity). What one holds in
 * flight the other counts; what one publishes the other counts as stored; one capture's held core is kept from the
 * other's vacuum; the crash-rate windows are shared; the lock excludes the other while held (tried from a child,
 * whose open file is the other capture's), and is free once released; what is spent under it (session_spend:
 * KeepModules=) sees the other's bytes in flight. Needs root: the ledger must be root's.
 */
#include "intake.h"
#include "ledger.h"
#include "tidy.h"
#include "unit.h"

static char dir[256];
static int dirfd_;
static struct session a, b;
static struct engine_hooks ha, hb;

static void setup(void)
{
	if (geteuid() != 0)
		return;
	unit_tmpdir(dir, sizeof(dir));
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(session_open(&a, dirfd_), 0);
	ck_assert_int_eq(session_open(&b, dirfd_), 0);
	/* b stands for another handler: the parent is alive, with a start time of its own. */
	b.pid = getppid();
	ck_assert_int_eq(proc_start_time(b.pid, &b.start), 0);
	ck_assert_int_eq(session_begin(&a, NULL, NULL), 0);
	ck_assert_int_eq(session_begin(&b, NULL, NULL), 0);
	session_hooks(&a, &ha);
	session_hooks(&b, &hb);
}

static void teardown(void)
{
	if (geteuid() != 0)
		return;
	session_close(&a);
	session_close(&b);
	close(dirfd_);
	unit_rmtree(dir);
}

static void used_by(struct engine_hooks *h, uint64_t *used, uint64_t *pending)
{
	ck_assert_int_eq(h->lock(h->ctx), 0);
	ck_assert_int_eq(h->used(h->ctx, used, pending), 0);
	h->unlock(h->ctx);
}

START_TEST(test_counted_by_the_other)
{
	uint64_t used, pending;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(ha.lock(ha.ctx), 0);
	ck_assert_int_eq(ha.reserve(ha.ctx, 10 << 20, 4 << 20, false), 0);
	ha.unlock(ha.ctx);
	used_by(&hb, &used, &pending);
	ck_assert_uint_eq(used, 10 << 20);
	ck_assert_uint_eq(pending, 4 << 20);
	/* Its own bytes are not counted twice. */
	used_by(&ha, &used, &pending);
	ck_assert_uint_eq(used, 0);
	/* Published: stored bytes now, not in flight. */
	ck_assert_int_eq(session_publish(&a, 9 << 20, 0, 0, 0), 0);
	used_by(&hb, &used, &pending);
	ck_assert_uint_eq(used, 9 << 20);
	ck_assert_uint_eq(pending, 0);
}
END_TEST

/* A core a's analysis still reads (held) stays when b makes room; the other one goes. */
START_TEST(test_held_kept_from_the_others_vacuum)
{
	struct stat st;
	uint64_t freed = 0;
	int fd;

	if (geteuid() != 0)
		return;
	fd = openat(dirfd_, "core.held.1.20261121T130000Z", O_CREAT | O_WRONLY, 0600);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	ck_assert_int_eq(fstat(fd, &st), 0);
	close(fd);
	close(openat(dirfd_, "core.free.2.20261121T130000Z", O_CREAT | O_WRONLY, 0600));
	/* Held as the capture publishes it (session_publish), in the same write. */
	ck_assert_int_eq(session_publish(&a, 0, 0, (uint64_t)st.st_ino, (uint64_t)st.st_ino), 0);
	ck_assert_int_eq(hb.lock(hb.ctx), 0);
	ck_assert_int_eq(hb.used(hb.ctx, &freed, &freed), 0);
	ck_assert_int_eq(hb.make_room(hb.ctx, 1 << 30, 1ULL << 40, &freed), 0);
	hb.unlock(hb.ctx);
	ck_assert_int_eq(faccessat(dirfd_, "core.held.1.20261121T130000Z", F_OK, 0), 0);
	ck_assert_int_ne(faccessat(dirfd_, "core.free.2.20261121T130000Z", F_OK, 0), 0);
}
END_TEST

/*
 * A handler c (a child of this test, killed) that began a crash's capture, and got as far as stage before it died:
 * BEGUN, SENDING its entry (session_sending), or SERVED (socket mode's). Returns how many crashes a, then b, found to
 * name. (A handler killed once its entry is out is handed on too, sending: who names it finds the entry by its id,
 * crash_entry_out(), and names nothing: t-killed.)
 */
enum stage { BEGUN, SENDING, SERVED };
#define ENTRY_ID "0123456789abcdef0123456789abcdef"

static void dead_handler(enum stage stage, unsigned *by_a, unsigned *by_b)
{
	/* A name with a space and a newline: the ledger's lines must survive it. */
	const struct ledger_crash crash = { .pid = 4242, .uid = 1000, .gid = 1001, .time = 1700000000, .signal = 11,
					    .comm = "a b\nc", .by_server = stage == SERVED };
	struct session c;
	pid_t child;

	ck_assert_int_eq(session_open(&c, dirfd_), 0);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	c.pid = child;
	ck_assert_int_eq(proc_start_time(child, &c.start), 0);
	ck_assert_int_eq(session_begin(&c, &crash, ENTRY_ID), 0);
	if (stage == SENDING)
		ck_assert_int_eq(session_sending(&c), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(c.statefd);
	a.n_lost = b.n_lost = 0;
	ck_assert_int_eq(session_begin(&a, NULL, NULL), 0);
	ck_assert_int_eq(session_begin(&b, NULL, NULL), 0);
	*by_a = a.n_lost;
	*by_b = b.n_lost;
}

/* A pipe-mode handler killed before its entry: the next handler to read the ledger names its crash, and only it. */
START_TEST(test_dead_handlers_crash_named_once)
{
	unsigned by_a, by_b;

	if (geteuid() != 0)
		return;
	dead_handler(BEGUN, &by_a, &by_b);
	ck_assert_uint_eq(by_a, 1);
	ck_assert_uint_eq(by_b, 0);
	ck_assert_int_eq(a.lost[0].crash.pid, 4242);
	ck_assert_uint_eq(a.lost[0].crash.uid, 1000);
	ck_assert_uint_eq(a.lost[0].crash.gid, 1001);
	ck_assert_uint_eq(a.lost[0].crash.signal, 11);
	ck_assert_uint_eq(a.lost[0].crash.time, 1700000000);
	ck_assert_uint_eq(a.lost[0].stored, 0);
	ck_assert_str_eq(a.lost[0].crash.comm, "a b\nc");
	/* The id from the start (the core's record of it is a digest: who names the crash has it from here). */
	ck_assert_str_eq(a.lost[0].entry, ENTRY_ID);
	ck_assert(!a.lost[0].sending);
}
END_TEST

/* Killed as it sent its entry: the crash is handed on with the entry's id, for the next handler to look for. */
START_TEST(test_sending_handler_hands_on_its_entry)
{
	unsigned by_a, by_b;

	if (geteuid() != 0)
		return;
	dead_handler(SENDING, &by_a, &by_b);
	ck_assert_uint_eq(by_a, 1);
	ck_assert_uint_eq(by_b, 0);
	ck_assert_str_eq(a.lost[0].entry, ENTRY_ID);
	ck_assert(a.lost[0].sending);
}
END_TEST

/* Socket mode's process for a crash, killed: its server names the crash (capture_lost), never another handler. */
START_TEST(test_served_crash_left_to_its_server)
{
	unsigned by_a, by_b;

	if (geteuid() != 0)
		return;
	dead_handler(SERVED, &by_a, &by_b);
	ck_assert_uint_eq(by_a, 0);
	ck_assert_uint_eq(by_b, 0);
}
END_TEST

START_TEST(test_rate_windows_shared)
{
	const struct rate_config rc = { 60, 1, 100, 0 };
	struct rate_verdict v;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(session_rate(&a, "/usr/bin/loop", 1000, 1000, &rc, &v), 0);
	ck_assert(v.allowed);
	ck_assert_int_eq(session_rate(&b, "/usr/bin/loop", 1000, 1001, &rc, &v), 0);
	ck_assert(!v.allowed);
	ck_assert_int_eq(session_rate(&b, "/usr/bin/other", 1000, 1001, &rc, &v), 0);
	ck_assert(v.allowed);
}
END_TEST

/* Whether b's lock can be taken now, from a child (b's open file, another process): 1, or 0 when it waits. */
static int b_lock_free(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Check's own SIGALRM handler would kill the whole test: the default ends the child alone. */
		signal(SIGALRM, SIG_DFL);
		alarm(1);
		if (hb.lock(hb.ctx) < 0)
			_exit(1);
		/* The lock is the open file's, which the parent shares: let it go before leaving. */
		hb.unlock(hb.ctx);
		_exit(0);
	}
	return unit_reap(pid) == 0;
}

START_TEST(test_lock_excludes)
{
	if (geteuid() != 0)
		return;
	ck_assert_int_eq(ha.lock(ha.ctx), 0);
	ck_assert_int_eq(b_lock_free(), 0);
	ha.unlock(ha.ctx);
	ck_assert_int_eq(b_lock_free(), 1);
}
END_TEST

/* session_spend(): the other's bytes in flight are given, and the lock is held while spending. */
static uint64_t spent_used;
static int spent_lock_free = -1;

static uint64_t spent_pending = UINT64_MAX;

static int spend(void *ctx, uint64_t used, uint64_t pending)
{
	(void) ctx;
	spent_used = used;
	spent_pending = pending;
	spent_lock_free = b_lock_free();
	return -EFBIG;
}

START_TEST(test_spend_under_the_lock)
{
	if (geteuid() != 0)
		return;
	ck_assert_int_eq(hb.lock(hb.ctx), 0);
	ck_assert_int_eq(hb.reserve(hb.ctx, 3 << 20, 0, false), 0);
	hb.unlock(hb.ctx);
	ck_assert_int_eq(session_spend(&a, spend, NULL), -EFBIG);
	ck_assert_uint_eq(spent_used, 3 << 20);
	ck_assert_uint_eq(spent_pending, 0);
	ck_assert_int_eq(spent_lock_free, 0);
	ck_assert_int_eq(b_lock_free(), 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("session");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_counted_by_the_other);
	tcase_add_test(t, test_dead_handlers_crash_named_once);
	tcase_add_test(t, test_sending_handler_hands_on_its_entry);
	tcase_add_test(t, test_served_crash_left_to_its_server);
	tcase_add_test(t, test_held_kept_from_the_others_vacuum);
	tcase_add_test(t, test_rate_windows_shared);
	tcase_add_test(t, test_lock_excludes);
	tcase_add_test(t, test_spend_under_the_lock);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(suite)
