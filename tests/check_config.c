/* check_config.c: the config file: defaults, every key, and bad input that must never cost a core. */
#include "config.h"
#include "unit.h"

static char dir[256], path[512];

static void setup(void)
{
	unit_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/coresink.conf", dir);
}

static void teardown(void)
{
	unit_rmtree(dir);
}

static void write_conf(const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_defaults)
{
	struct config c;

	config_defaults(&c);
	ck_assert_str_eq(c.directory, "/var/lib/coresink");
	ck_assert_uint_eq(c.chunk_size, 16 << 20);
	ck_assert(c.keep_free.percent);
	ck_assert_uint_eq(c.keep_free.value, 15);
	ck_assert_uint_eq(c.keep_free.cap, 4ULL << 30);
	ck_assert_int_eq(c.strategy, STRATEGY_READWRITE);
	ck_assert_uint_eq(c.file_mode, 0640);
}
END_TEST

START_TEST(test_every_key)
{
	struct config c;
	struct diag d = { 0 };

	write_conf("# comment\n; other comment\n\n[Coresink]\n  Directory = /srv/cores \nChunkSize=4M\n"
		   "KeepFree=2G\nStrategy=readwrite\nFileMode=0600\n");
	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert_str_eq(c.directory, "/srv/cores");
	ck_assert_uint_eq(c.chunk_size, 4 << 20);
	ck_assert(!c.keep_free.percent);
	ck_assert_uint_eq(c.keep_free.value, 2ULL << 30);
	ck_assert_uint_eq(c.keep_free.cap, UINT64_MAX);
	ck_assert_int_eq(c.strategy, STRATEGY_READWRITE);
	ck_assert_uint_eq(c.file_mode, 0600);
}
END_TEST

START_TEST(test_bad_values_keep_defaults)
{
	struct config c;
	struct diag d = { 0 };

	write_conf("[Coresink]\nDirectory=relative/path\nChunkSize=12\nChunkSize=3G\nKeepFree=lots\n"
		   "Strategy=mmap\nFileMode=0777\nTypo=1\nno equals sign\n");
	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 8);
	ck_assert_str_eq(c.directory, "/var/lib/coresink");
	ck_assert_uint_eq(c.chunk_size, 16 << 20);
	ck_assert(c.keep_free.percent);
	ck_assert_int_eq(c.strategy, STRATEGY_READWRITE);
	ck_assert_uint_eq(c.file_mode, 0640);
	ck_assert_ptr_nonnull(strstr(d.msg[6], "unknown key 'Typo'"));
	ck_assert_ptr_nonnull(strstr(d.msg[0], ":2:"));
}
END_TEST

START_TEST(test_other_section_ignored)
{
	struct config c;
	struct diag d = { 0 };

	write_conf("Directory=/before/section\n[Coredump]\nStorage=none\nDirectory=/wrong\n[Coresink]\nKeepFree=5%\n");
	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 1);
	ck_assert_str_eq(c.directory, "/var/lib/coresink");
	ck_assert_uint_eq(c.keep_free.value, 5);
}
END_TEST

START_TEST(test_missing_file)
{
	struct config c;
	struct diag d = { 0 };

	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, "/nonexistent/coresink.conf", &d), -ENOENT);
	ck_assert_str_eq(c.directory, "/var/lib/coresink");
}
END_TEST

START_TEST(test_directory_is_not_a_config)
{
	struct config c;
	struct diag d = { 0 };

	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, dir, &d), -EISDIR);
	ck_assert_str_eq(c.directory, "/var/lib/coresink");
}
END_TEST

START_TEST(test_garbage_is_bounded)
{
	struct config c;
	struct diag d = { 0 };
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs("[Coresink]\n", f);
	for (int i = 0; i < 200; i++)
		fprintf(f, "Key%d=\x01\xff garbage %d\n", i, i);
	fclose(f);
	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(d.n, DIAG_MAX);
	ck_assert_int_eq(diag_count(&d), 200);
}
END_TEST

START_TEST(test_print_roundtrip)
{
	struct config c, back;
	struct diag d = { 0 };
	FILE *f;

	config_defaults(&c);
	strcpy(c.directory, "/srv/x");
	c.strategy = STRATEGY_READWRITE;
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	config_print(&c, f);
	fclose(f);
	config_defaults(&back);
	ck_assert_int_eq(config_load(&back, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert_str_eq(back.directory, "/srv/x");
	ck_assert_int_eq(back.strategy, STRATEGY_READWRITE);
	ck_assert_uint_eq(back.keep_free.value, 15);
}
END_TEST

/* The analysis keys: on, a size bound, a deadline in seconds or milliseconds; bad values keep the defaults. */
START_TEST(test_stack_trace_keys)
{
	struct config c;
	struct diag d = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	config_defaults(&c);
	ck_assert(c.stack_trace);
	ck_assert_uint_eq(c.stack_trace_ms, 15000);
	write_conf("[Coresink]\nStackTrace=no\nStackTraceMaxSize=512M\nStackTraceTimeoutSec=250ms\n");
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert(!c.stack_trace);
	ck_assert_uint_eq(c.stack_trace_max, 512ULL << 20);
	ck_assert_uint_eq(c.stack_trace_ms, 250);
	f = open_memstream(&out, &len);
	config_print(&c, f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, "StackTraceTimeoutSec=250ms\n"));
	free(out);
	write_conf("[Coresink]\nStackTraceTimeoutSec=2s\n");
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_uint_eq(c.stack_trace_ms, 2000);
	config_defaults(&c);
	write_conf("[Coresink]\nStackTraceTimeoutSec=5ms\nStackTraceTimeoutSec=2h\nStackTraceTimeoutSec=99999999s\n"
		   "StackTrace=maybe\n");
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 4);
	ck_assert_uint_eq(c.stack_trace_ms, 15000);
	ck_assert(c.stack_trace);
}
END_TEST

/* Socket mode's keys: a path that fits sun_path and a pattern, a bounded parallelism, a deadline. */
START_TEST(test_socket_keys)
{
	struct config c;
	struct diag d = { 0 };
	char line[300];

	config_defaults(&c);
	ck_assert_str_eq(c.socket, "/run/coresink/kernel.socket");
	ck_assert_uint_eq(c.socket_parallel, 4);
	ck_assert_uint_eq(c.socket_timeout_ms, 300000);
	write_conf("[Coresink]\nSocket=/run/x/k.sock\nSocketMaxParallel=16\nSocketTimeoutSec=90s\n");
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert_str_eq(c.socket, "/run/x/k.sock");
	ck_assert_uint_eq(c.socket_parallel, 16);
	ck_assert_uint_eq(c.socket_timeout_ms, 90000);
	config_defaults(&c);
	(void) snprintf(line, sizeof(line), "[Coresink]\nSocket=/%0120d\n", 0);
	write_conf("[Coresink]\nSocket=relative\nSocket=/run/a b\nSocket=/run/%p\nSocketMaxParallel=0\n"
		   "SocketMaxParallel=257\nSocketMaxParallel=-1\nSocketTimeoutSec=1ms\n");
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 7);
	write_conf(line);
	d = (struct diag) { 0 };
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 1);
	ck_assert_str_eq(c.socket, "/run/coresink/kernel.socket");
	ck_assert_uint_eq(c.socket_parallel, 4);
}
END_TEST

static void write_file(const char *name, const char *text)
{
	char p[700];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Rules from the file and its drop-ins, in order; each one's keys apply over the config; names default to where. */
START_TEST(test_rules_and_dropins)
{
	struct config c;
	struct diag d = { 0 };
	char sub[600];

	write_conf("[Coresink]\nCompress=no\n[Rule]\nName=db\nMatchExecutable=/usr/sbin/postgres\nCore=minimal\n"
		   "MaxCoreSize=1G\n");
	snprintf(sub, sizeof(sub), "%s.d", path);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	write_file("coresink.conf.d/20-b.conf", "[Rule]\nMatchUser=1000\nStorage=none\n");
	write_file("coresink.conf.d/10-a.conf", "[Coresink]\nCompress=yes\nStorage=none\n[Rule]\nMatchComm=x\n"
		   "RateLimitBurst=1\n");
	write_file("coresink.conf.d/ignored.txt", "[Coresink]\nDirectory=/nowhere\n");
	config_read(&c, path, true, &d);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert(c.compress);                     /* 10-a's [Coresink] over the main file's */
	ck_assert_int_eq(c.storage, STORAGE_NONE);
	ck_assert_str_eq(c.directory, "/var/lib/coresink");
	ck_assert_uint_eq(c.n_rules, 3);
	ck_assert_str_eq(c.rules[0].name, "db");
	ck_assert_str_eq(c.rules[1].name, "10-a.conf:4");
	ck_assert_str_eq(c.rules[2].name, "20-b.conf:1");
	config_apply_rule(&c, &c.rules[0]);
	ck_assert_int_eq(c.core, CORE_MINIMAL);
	ck_assert_uint_eq(c.max_core_size, 1ULL << 30);
	config_free(&c);
}
END_TEST

/* A rule with any bad line is skipped whole, and said so; the rest of the config is read on. */
START_TEST(test_bad_rules)
{
	const char *bad[] = {
		"MatchExecutabel=/x", "MatchSignal=NOSUCH", "Storage=nowhere", "KeepFree=1", "Directory=/x",
		"MatchComm=a\nMatchComm=b", "Name=has space", "no equals sign", "MinimalStackSizeMax=1",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct config c;
		struct diag d = { 0 };
		char text[256];

		snprintf(text, sizeof(text), "[Rule]\nName=r\nStorage=none\n%s\n[Coresink]\nFileMode=0600\n", bad[i]);
		write_conf(text);
		config_defaults(&c);
		ck_assert_int_eq(config_load(&c, path, &d), 0);
		ck_assert_msg(diag_count(&d) == 1, "%s", bad[i]);
		ck_assert_uint_eq(c.n_rules, 1);
		ck_assert_msg(c.rules[0].bad, "%s", bad[i]);
		ck_assert_uint_eq(c.file_mode, 0600);
		config_free(&c);
	}
}
END_TEST

/* The speed keys: read-ahead auto or in whole MiB up to 64M, zstd's threads up to 64; anything else keeps the default. */
START_TEST(test_speed_keys)
{
	struct config c, def;
	struct diag d = { 0 };

	config_defaults(&def);
	ck_assert_uint_eq(def.read_ahead, READ_AHEAD_AUTO);
	ck_assert_uint_le(def.compress_threads, 4);
	write_conf("[Coresink]\nReadAhead=3M\nCompressThreads=0\n");
	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert_uint_eq(c.read_ahead, 3 << 20);
	ck_assert_uint_eq(c.compress_threads, 0);
	write_conf("[Coresink]\nReadAhead=1500K\nReadAhead=65M\nCompressThreads=65\nCompressThreads=-1\n");
	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 4);
	ck_assert_uint_eq(c.read_ahead, def.read_ahead);
	ck_assert_uint_eq(c.compress_threads, def.compress_threads);
	write_conf("[Coresink]\nReadAhead=0\nReadAhead=auto\nReadAhead=Auto\n");
	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 5);
	ck_assert_uint_eq(c.read_ahead, READ_AHEAD_AUTO);
}
END_TEST

/*
 * Encrypt=: recipients read into keys; a value that does not parse is kept, marked bad (it fails closed: no core),
 * and said, in [Coresink] as in a [Rule], whose other keys still apply; an empty value turns it off.
 */
/* MetricsFile= and the notifiers' keys: their defaults, good values, and bad ones refused with the default kept. */
START_TEST(test_metrics_and_notify_keys)
{
	struct config c;
	struct diag d = { 0 };

	config_defaults(&c);
	ck_assert_str_eq(c.metrics_file, "auto");
	ck_assert_str_eq(c.notify_dir, NOTIFY_DEFAULT_DIR);
	ck_assert_uint_eq(c.notify_interval, 3600);
	ck_assert_uint_eq(c.notify_timeout_ms, 30000);
	write_conf("[Coresink]\nMetricsFile=/var/lib/x/coresink.prom\nNotifyDirectory=/etc/cs/notify.d\n"
		   "NotifyIntervalSec=0\nNotifyTimeoutSec=5s\n");
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert_str_eq(c.metrics_file, "/var/lib/x/coresink.prom");
	ck_assert_str_eq(c.notify_dir, "/etc/cs/notify.d");
	ck_assert_uint_eq(c.notify_interval, 0);
	ck_assert_uint_eq(c.notify_timeout_ms, 5000);
	write_conf("[Coresink]\nMetricsFile=no\nNotifyDirectory=no\n");
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_str_eq(c.metrics_file, "");
	ck_assert_str_eq(c.notify_dir, "");
	/* Not a .prom file (node_exporter would not read it), relative, a name of a directory; a notify path a word
	 * splitter or a specifier would change. */
	config_defaults(&c);
	write_conf("[Coresink]\nMetricsFile=/var/lib/x/coresink.txt\nMetricsFile=coresink.prom\nMetricsFile=/x/.prom\n"
		   "NotifyDirectory=/etc/a b\nNotifyDirectory=/etc/%p\nNotifyDirectory=relative\n"
		   "NotifyDirectory=/etc/\"x\"\n");
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 7);
	ck_assert_str_eq(c.metrics_file, "auto");
	ck_assert_str_eq(c.notify_dir, NOTIFY_DEFAULT_DIR);
	/* The collect hooks: by default those of SYSCONFDIR/coresink/collect.d, as coresink-upload, 2 s at most. */
	config_defaults(&c);
	ck_assert_str_eq(c.collect_dir, COLLECT_DEFAULT_DIR);
	ck_assert_str_eq(c.collect_user, "coresink-upload");
	ck_assert_uint_eq(c.collect_timeout_ms, 2000);
	write_conf("[Coresink]\nCollectDirectory=/etc/cs/collect.d\nCollectUser=hooks\nCollectTimeoutSec=500ms\n");
	d = (struct diag) { 0 };
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert_str_eq(c.collect_dir, "/etc/cs/collect.d");
	ck_assert_str_eq(c.collect_user, "hooks");
	ck_assert_uint_eq(c.collect_timeout_ms, 500);
	/* The process is held for them: never past a minute; a path a specifier would change; an option for a user. */
	config_defaults(&c);
	write_conf("[Coresink]\nCollectTimeoutSec=2min\nCollectTimeoutSec=0\nCollectDirectory=/etc/%p\n"
		   "CollectUser=-root\nCollectDirectory=no\n");
	d = (struct diag) { 0 };
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 4);
	ck_assert_uint_eq(c.collect_timeout_ms, 2000);
	ck_assert_str_eq(c.collect_dir, "");
	ck_assert_str_eq(c.collect_user, "coresink-upload");
}
END_TEST

START_TEST(test_encrypt)
{
	static const char *const pub = "age1rvdvyrzzwg29kfvu9eaz7gk8ldflj00pmcq8f4npvnjpu2vjuatspqctn4";
	struct config c, other;
	struct diag d = { 0 };
	char text[1024];

	snprintf(text, sizeof(text), "[Coresink]\nEncrypt=%s  %s\n", pub, pub);
	write_conf(text);
	config_defaults(&c);
	ck_assert_int_eq(c.encrypt.n, 0);
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 0);
	ck_assert_uint_eq(c.encrypt.n, 2);
	ck_assert(!c.encrypt.bad);
	ck_assert_int_eq(c.encrypt.keys[0][0], 0x1b);
	snprintf(text, sizeof(text), "[Coresink]\nEncrypt=%s age1typo\n[Rule]\nName=r\nMatchComm=x\nEncrypt=%.20s\n"
		 "Core=minimal\n", pub, pub);
	write_conf(text);
	config_defaults(&c);
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert_int_eq(diag_count(&d), 2);
	ck_assert(c.encrypt.bad);
	ck_assert_uint_eq(c.encrypt.n, 0);
	ck_assert_uint_eq(c.n_rules, 1);
	ck_assert(!c.rules[0].bad);
	config_defaults(&other);
	config_apply_rule(&other, &c.rules[0]);
	ck_assert(other.encrypt.bad);
	ck_assert_int_eq(other.core, CORE_MINIMAL);
	config_free(&c);
	write_conf("[Coresink]\nEncrypt=\n");
	config_defaults(&c);
	d = (struct diag) { 0 };
	ck_assert_int_eq(config_load(&c, path, &d), 0);
	ck_assert(!c.encrypt.bad && c.encrypt.n == 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_speed_keys);
	tcase_add_test(tc, test_encrypt);
	tcase_add_test(tc, test_metrics_and_notify_keys);
	tcase_add_test(tc, test_bad_values_keep_defaults);
	tcase_add_test(tc, test_other_section_ignored);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_directory_is_not_a_config);
	tcase_add_test(tc, test_garbage_is_bounded);
	tcase_add_test(tc, test_print_roundtrip);
	tcase_add_test(tc, test_stack_trace_keys);
	tcase_add_test(tc, test_socket_keys);
	tcase_add_test(tc, test_rules_and_dropins);
	tcase_add_test(tc, test_bad_rules);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
