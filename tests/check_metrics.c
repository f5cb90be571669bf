/*
 * check_metrics.c: the counters of the crashes in a real directory: one crash and one event counted and read back,
 * the exposition written into MetricsFile= (whole, 0644, cumulative buckets) and printed the same, a torn state file
 * (a power cut) counted from zero, a reason for each outcome, and MetricsFile= through a link refused.
 */
#include <sys/stat.h>

#include "report/metrics.h"
#include "unit.h"

static char dir[256], path[PATH_MAX];
static int dirfd_ = -1;
static struct config conf;

static void setup(void)
{
	unit_tmpdir(dir, sizeof(dir));
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
	config_defaults(&conf);
	(void) snprintf(path, sizeof(path), "%s/coresink.prom", dir);
	(void) snprintf(conf.metrics_file, sizeof(conf.metrics_file), "%s", path);
}

static void teardown(void)
{
	close(dirfd_);
	unit_rmtree(dir);
}

static char *slurp(const char *p)
{
	static char buf[65536];
	int fd = open(p, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

START_TEST(test_counted_and_exported)
{
	const struct metrics_crash c = { .result = RESULT_TRUNCATED, .reason = REASON_KEEP_FREE, .signal = SIGABRT,
					 .input = 1000, .written = 4096, .removed = 2, .removed_bytes = 8192,
					 .capture_us = 300000, .time = 1700000000 };
	struct metrics m;
	struct stat st;
	char *text;

	ck_assert_int_eq(metrics_crash(dirfd_, &conf, &c), 0);
	ck_assert_int_eq(metrics_crash(dirfd_, &conf, &c), 0);
	ck_assert_int_eq(metrics_event(dirfd_, &conf, EVENT_KERNEL_DROPPED, 3), 0);
	ck_assert_int_eq(metrics_read(dirfd_, &m), 0);
	ck_assert_uint_eq(m.crashes[RESULT_TRUNCATED][REASON_KEEP_FREE], 2);
	ck_assert_uint_eq(m.signals[metrics_signal_index(SIGABRT)], 2);
	ck_assert_uint_eq(m.input, 2000);
	ck_assert_uint_eq(m.removed_bytes, 16384);
	ck_assert_uint_eq(m.events[EVENT_KERNEL_DROPPED], 3);
	ck_assert_uint_eq(m.last_time, 1700000000);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	text = slurp(path);
	ck_assert_ptr_nonnull(strstr(text, "coresink_crashes_total{result=\"truncated\",reason=\"keep_free\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "coresink_crashes_total{result=\"stored\",reason=\"none\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(text, "coresink_kernel_dropped_total 3\n"));
	/* 0.3 s: in the 0.5 bucket and every later one, not in 0.25. */
	ck_assert_ptr_nonnull(strstr(text, "coresink_capture_seconds_bucket{le=\"0.25\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(text, "coresink_capture_seconds_bucket{le=\"0.5\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "coresink_capture_seconds_bucket{le=\"+Inf\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "coresink_capture_seconds_sum 0.600000\n"));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE coresink_crashes_total counter\n"));
}
END_TEST

/* A state file cut short (a power cut during its rewrite) is taken as none: the counters start again from zero. */
START_TEST(test_torn_resets)
{
	const struct metrics_crash c = { .result = RESULT_STORED, .signal = SIGSEGV };
	struct metrics m;
	int fd;

	ck_assert_int_eq(metrics_crash(dirfd_, &conf, &c), 0);
	fd = openat(dirfd_, METRICS_STATE, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 30), 0);
	close(fd);
	ck_assert_int_eq(metrics_read(dirfd_, &m), 0);
	ck_assert_uint_eq(m.crashes[RESULT_STORED][REASON_NONE], 0);
	ck_assert_int_eq(metrics_crash(dirfd_, &conf, &c), 0);
	ck_assert_int_eq(metrics_read(dirfd_, &m), 0);
	ck_assert_uint_eq(m.crashes[RESULT_STORED][REASON_NONE], 1);
	ck_assert_uint_eq(m.signals[metrics_signal_index(SIGSEGV)], 1);
}
END_TEST

START_TEST(test_reasons)
{
	struct outcome o = { .result = RESULT_STORED };

	ck_assert_int_eq(metrics_reason_of(&o), REASON_NONE);
	o = (struct outcome) { .result = RESULT_TRUNCATED, .st.limit = LIMIT_MAX_USE };
	ck_assert_int_eq(metrics_reason_of(&o), REASON_MAX_USE);
	o = (struct outcome) { .result = RESULT_TRUNCATED, .st.limit = LIMIT_CUT_SHORT };
	ck_assert_int_eq(metrics_reason_of(&o), REASON_CUT_SHORT);
	o = (struct outcome) { .result = RESULT_DISCARDED, .st.space_error = -ENOSPC };
	ck_assert_int_eq(metrics_reason_of(&o), REASON_DISK_FULL);
	o = (struct outcome) { .result = RESULT_SUPPRESSED, .suppressed_by = "user" };
	ck_assert_int_eq(metrics_reason_of(&o), REASON_RATE_USER);
	o = (struct outcome) { .result = RESULT_SUPPRESSED, .sig_dropped = true };
	ck_assert_int_eq(metrics_reason_of(&o), REASON_SIGNATURE);
	o = (struct outcome) { .result = RESULT_FAILED, .error = -EIO };
	ck_assert_int_eq(metrics_reason_of(&o), REASON_ERROR);
	ck_assert_uint_eq(metrics_signal_index(SIGKILL), METRICS_SIGNALS);
	ck_assert_str_eq(metrics_signal_name(metrics_signal_index(0)), "unknown");
}
END_TEST

/* MetricsFile= whose directory is reached through a link: not written, and said (-ENOTDIR); counted all the same. */
START_TEST(test_link_refused)
{
	const struct metrics_crash c = { .result = RESULT_STORED };
	char real[300], link[300];
	struct metrics m;

	(void) snprintf(real, sizeof(real), "%s/real", dir);
	(void) snprintf(link, sizeof(link), "%s/link", dir);
	ck_assert_int_eq(mkdir(real, 0755), 0);
	ck_assert_int_eq(symlink(real, link), 0);
	(void) snprintf(conf.metrics_file, sizeof(conf.metrics_file), "%s/coresink.prom", link);
	ck_assert_int_eq(metrics_crash(dirfd_, &conf, &c), -ENOTDIR);
	(void) snprintf(real, sizeof(real), "%s/real/coresink.prom", dir);
	ck_assert_int_eq(access(real, F_OK), -1);
	ck_assert_int_eq(metrics_read(dirfd_, &m), 0);
	ck_assert_uint_eq(m.crashes[RESULT_STORED][REASON_NONE], 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("metrics");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_counted_and_exported);
	tcase_add_test(tc, test_torn_resets);
	tcase_add_test(tc, test_reasons);
	tcase_add_test(tc, test_link_refused);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
