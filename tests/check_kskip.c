/* check_kskip.c: the kernel's lines for crashes it dropped over core_pipe_limit, both forms, and other records. */
#include "ledger.h"
#include "unit.h"

static const struct {
	const char *rec;
	int kind, pid;
	uint64_t seq;
	const char *comm;
} records[] = {
	{ "4,1834,40307815,-;coredump: 804(repro): over core_pipe_limit, skipping core dump\n", 1, 804, 1834, "repro" },
	{ "4,7,1,-;Pid 795(old kernel) over core_pipe_limit\n", 1, 795, 7, "old kernel" },
	/* A comm holding what the line is made of: parentheses, digits, the marker itself. */
	{ "4,9,1,-;coredump: 12(a(1)b): over core_pipe_limit, skipping core dump\n", 1, 12, 9, "a(1)b" },
	{ "4,10,1,-;coredump: 13(: over core_pipe_limit): over core_pipe_limit, skipping core dump\n", 1, 13, 10,
	  ": over core_pipe_limit" },
	{ "4,11,1,-;Skipping core dump\n", 0, 0, 11, NULL },
	{ "6,12,1,-;coredump: 14(x): RLIMIT_CORE is set to 1, aborting core\n SUBSYSTEM=x\n", 0, 0, 12, NULL },
	{ "garbage", -EINVAL, 0, 0, NULL },
	{ "4,x,1,-;coredump: 15(y): over core_pipe_limit", -EINVAL, 0, 0, NULL },
	{ "4,16,1,-;over core_pipe_limit without a pid", 0, 0, 16, NULL },
	{ "4,18,1,-;coredump_pipe: 130 callbacks suppressed\n", 2, 130, 18, NULL },
	{ "4,19,1,-;other_function: 5 callbacks suppressed\n", 0, 0, 19, NULL },
	{ "4,17,1,-;coredump: (x): over core_pipe_limit, skipping core dump", -EINVAL, 0, 17, NULL },
};

/* pid: the dropped crash's, or for a held-back count (kind 2) the count. */
START_TEST(test_records)
{
	struct kskip_record r;
	int kind = kskip_parse(records[_i].rec, strlen(records[_i].rec), &r);

	ck_assert_int_eq(kind, records[_i].kind);
	if (kind >= 0)
		ck_assert_uint_eq(r.seq, records[_i].seq);
	if (kind >= 0 && r.seq == 1834)
		ck_assert_uint_eq(r.usec, 40307815);
	if (kind == KSKIP_DROPPED) {
		ck_assert_int_eq(r.pid, records[_i].pid);
		ck_assert_str_eq(r.comm, records[_i].comm);
	}
	if (kind == KSKIP_HELD_BACK)
		ck_assert_uint_eq(r.held_back, (unsigned)records[_i].pid);
}
END_TEST

/*
 * The real kernel log: read to its end, the last sequence number past any asked for, nothing counted from a time
 * to come; needs root (CAP_SYSLOG).
 */
START_TEST(test_scan_real_log)
{
	struct kskip ks;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(kskip_scan(0, 0, &ks), 0);
	ck_assert_uint_gt(ks.last, 0);
	ck_assert_int_eq(kskip_scan(ks.last, 0, &ks), 0);
	ck_assert_uint_eq(ks.count, 0);
	ck_assert_int_eq(kskip_scan(0, UINT64_MAX, &ks), 0);
	ck_assert_uint_gt(ks.last, 0);
	ck_assert_uint_eq(ks.count + ks.held_back, 0);
	ck_assert_int_ge(kskip_pipe_limit(), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kskip");
	TCase *t = tcase_create("core");

	tcase_add_loop_test(t, test_records, 0, sizeof(records) / sizeof(records[0]));
	tcase_add_test(t, test_scan_real_log);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(suite)
