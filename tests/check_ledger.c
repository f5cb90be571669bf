/* check_ledger.c: the shared state's text form, damaged input, full tables, and a real file. */
#include "ledger/ledger.h"
#include "unit.h"

static struct ledger l, back;
static char text[65536];

START_TEST(test_roundtrip)
{
	struct inflight *f;
	struct rate_entry *e;

	memset(&l, 0, sizeof(l));
	l.published = 123456789;
	l.kmsg_seq = 4242;
	l.kmsg_at = 1795440000123ULL;
	f = ledger_inflight(&l, 42, 777);
	f->bytes = 16 << 20;
	f->pending = 4 << 20;
	f->held = 1234567;
	e = ledger_rate(&l, 0xdeadbeefULL, NULL);
	e->start = 1000;
	e->count = 3;
	e->suppressed = 2;
	ck_assert_uint_lt(ledger_format(&l, text, sizeof(text)), sizeof(text));
	ledger_parse(&back, text);
	ck_assert_uint_eq(back.published, 123456789);
	ck_assert_uint_eq(back.kmsg_seq, 4242);
	ck_assert_uint_eq(back.kmsg_at, 1795440000123ULL);
	ck_assert_uint_eq(back.n_inflight, 1);
	ck_assert_int_eq(back.inflight[0].pid, 42);
	ck_assert_uint_eq(back.inflight[0].start, 777);
	ck_assert_uint_eq(back.inflight[0].bytes, 16 << 20);
	ck_assert_uint_eq(back.inflight[0].pending, 4 << 20);
	ck_assert_uint_eq(back.inflight[0].held, 1234567);
	ck_assert_ptr_eq(ledger_rate(&back, 0xdeadbeefULL, NULL), &back.rate[0]);
	ck_assert_uint_eq(back.rate[0].suppressed, 2);
	ck_assert_ptr_eq(ledger_inflight(&back, 42, 777), &back.inflight[0]);
	/* The same pid with another start time is another process. */
	ck_assert_ptr_ne(ledger_inflight(&back, 42, 778), &back.inflight[0]);
}
END_TEST

/* Socket mode's records say so (the server names their crashes); a line without the mark is pipe mode's. */
START_TEST(test_by_server)
{
	struct inflight *f;

	memset(&l, 0, sizeof(l));
	f = ledger_inflight(&l, 42, 777);
	f->crash = (struct ledger_crash) { .pid = 4000, .uid = 1000, .time = 1795440000, .signal = 11,
					   .comm = "a b\nc", .by_server = true };
	f = ledger_inflight(&l, 43, 778);
	f->crash = (struct ledger_crash) { .pid = 4001, .comm = "pipe" };
	ck_assert_uint_lt(ledger_format(&l, text, sizeof(text)), sizeof(text));
	ledger_parse(&back, text);
	ck_assert_uint_eq(back.n_inflight, 2);
	ck_assert(back.inflight[0].crash.by_server);
	ck_assert_int_eq(back.inflight[0].crash.pid, 4000);
	ck_assert_str_eq(back.inflight[0].crash.comm, "a b\nc");
	ck_assert(!back.inflight[1].crash.by_server);
	/* An older handler's line, without the mark: pipe mode's. */
	ledger_parse(&back, "inflight 7 1 1 0 0 4000 0 0 5 11 0 0 6162 -\n");
	ck_assert_uint_eq(back.n_inflight, 1);
	ck_assert_int_eq(back.inflight[0].crash.pid, 4000);
	ck_assert_str_eq(back.inflight[0].crash.comm, "ab");
	ck_assert(!back.inflight[0].crash.by_server);
}
END_TEST

START_TEST(test_damaged)
{
	ledger_parse(&l, "published 10\ngarbage\ninflight -5 1 1\ninflight 7 x y\n\xff\xfe\nrate zz 1 2 3\n"
			 "inflight 9 1 100\npublished 20");
	ck_assert_uint_eq(l.published, 20);
	ck_assert_uint_eq(l.n_inflight, 1);
	ck_assert_int_eq(l.inflight[0].pid, 9);
	/* A line from before the pending count and the held core: none pending, none held. */
	ck_assert_uint_eq(l.inflight[0].pending, 0);
	ck_assert_uint_eq(l.inflight[0].held, 0);
	ck_assert_uint_eq(l.n_rate, 0);
}
END_TEST

START_TEST(test_tables_bounded)
{
	memset(&l, 0, sizeof(l));
	for (int i = 0; i < LEDGER_INFLIGHT_MAX; i++)
		ck_assert_ptr_nonnull(ledger_inflight(&l, i + 1, 1));
	ck_assert_ptr_null(ledger_inflight(&l, 99999, 1));
	ledger_drop_inflight(&l, 0);
	ck_assert_ptr_nonnull(ledger_inflight(&l, 99999, 1));
	/* A full rate table gives the stalest window's place to the new key. */
	for (int i = 0; i < LEDGER_RATE_MAX; i++)
		ledger_rate(&l, (uint64_t)i + 1, NULL)->start = 1000 + (uint64_t)i;
	ledger_rate(&l, 5, NULL)->start = 1;
	ck_assert_uint_eq(ledger_rate(&l, 99999, NULL)->key, 99999);
	ck_assert_uint_eq(l.n_rate, LEDGER_RATE_MAX);
	for (size_t i = 0; i < l.n_rate; i++)
		ck_assert_uint_ne(l.rate[i].key, 5);
	/* The global window (key 0) is never the one to go, however stale. */
	ledger_rate(&l, 0, NULL)->start = 0;
	ck_assert_uint_eq(ledger_rate(&l, 123456, NULL)->key, 123456);
	ck_assert_uint_eq(ledger_rate(&l, 0, NULL)->start, 0);
	ck_assert_uint_lt(ledger_format(&l, text, sizeof(text)), sizeof(text));
	/* However full, the text ends in its end line (a small buffer leaves records out, never that line). */
	ck_assert_str_eq(text + strlen(text) - 4, "end\n");
	ck_assert_uint_lt(ledger_format(&l, text, 200), 200);
	ck_assert_str_eq(text + strlen(text) - 4, "end\n");
}
END_TEST

/* A ledger file in a new directory (dir, which the caller removes). */
static int state_file(char *dir, size_t len)
{
	char path[512];
	int fd;

	unit_tmpdir(dir, len);
	snprintf(path, sizeof(path), "%s/state", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	return fd;
}

START_TEST(test_file)
{
	char dir[256];
	int fd = state_file(dir, sizeof(dir));

	memset(&l, 0, sizeof(l));
	l.published = 1ULL << 40;
	for (int i = 0; i < 10; i++)
		ledger_inflight(&l, 100 + i, 5)->bytes = 1;
	ck_assert_int_eq(ledger_save(fd, &l), 0);
	/* A shorter ledger leaves no tail of the longer one behind. */
	l.n_inflight = 1;
	ck_assert_int_eq(ledger_save(fd, &l), 0);
	ck_assert_int_eq(ledger_load(fd, &back), 0);
	ck_assert_uint_eq(back.published, 1ULL << 40);
	ck_assert_uint_eq(back.n_inflight, 1);
	close(fd);
	unit_rmtree(dir);
}
END_TEST

/*
 * A handler killed between its write of a shorter ledger and the cut to its length (a step t-kills kills at): the old
 * text's tail, whole records of a moment ago, stays after the new text; they are not read back.
 */
START_TEST(test_torn_save)
{
	char dir[256];
	int fd = state_file(dir, sizeof(dir));
	size_t n;

	memset(&l, 0, sizeof(l));
	for (int i = 0; i < 10; i++)
		ledger_inflight(&l, 100 + i, 5)->crash.pid = 2000 + i;
	ck_assert_int_eq(ledger_save(fd, &l), 0);
	l.n_inflight = 1;
	n = ledger_format(&l, text, sizeof(text));
	ck_assert_int_eq(pwrite(fd, text, n, 0), (ssize_t)n);
	ck_assert_int_eq(ledger_load(fd, &back), 0);
	ck_assert_uint_eq(back.n_inflight, 1);
	ck_assert_int_eq(back.inflight[0].crash.pid, 2000);
	/* A ledger an older coresink wrote, without the end line, is read whole. */
	ledger_parse(&back, "published 5\ninflight 7 1 1\n");
	ck_assert_uint_eq(back.published, 5);
	ck_assert_uint_eq(back.n_inflight, 1);
	close(fd);
	unit_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ledger");
	TCase *tc = tcase_create("ledger");

	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_by_server);
	tcase_add_test(tc, test_damaged);
	tcase_add_test(tc, test_tables_bounded);
	tcase_add_test(tc, test_file);
	tcase_add_test(tc, test_torn_save);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
