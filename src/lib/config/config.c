/*
 * config.c: the configuration's keys: every key is a row of one table (name, parser, printer, field, whether a
 * [Rule] may set it), with the defaults and the printer that makes --check-config. The file and its drop-ins are
 * read by config-file.c, the [Rule] sections by config-rule.c.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "config-internal.h"
#include "config.h"
#include "intake.h"
#include "sandbox.h"

#define MIN_CHUNK (64 * 1024)
#define MAX_CHUNK (1024 * 1024 * 1024)


static int parse_directory(const char *v, void *field)
{
	if (v[0] != '/')
		return -EINVAL;
	if (strlen(v) >= PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(field, v);
	return 0;
}

/*
 * NotifyDirectory=, CollectDirectory=: "no" (or empty) for none, or an absolute path of plain characters: each
 * program in it is run by its path, which no specifier or quote may change.
 */
static int parse_notify_dir(const char *v, void *field)
{
	if (strcmp(v, "no") == 0 || v[0] == '\0') {
		*(char *)field = '\0';
		return 0;
	}
	if (v[0] != '/' || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-") != strlen(v))
		return -EINVAL;
	if (strlen(v) >= PATH_MAX - NAME_MAX - 2)
		return -ENAMETOOLONG;
	strcpy(field, v);
	return 0;
}

/*
 * MetricsFile=: "auto", "no" (or empty) for none, or an absolute path whose name ends in ".prom", the only files
 * node_exporter's textfile collector reads.
 */
static int parse_metrics_file(const char *v, void *field)
{
	size_t n = strlen(v);

	if (strcmp(v, "no") == 0 || v[0] == '\0') {
		*(char *)field = '\0';
		return 0;
	}
	if (strcmp(v, "auto") != 0 && (v[0] != '/' || n < 6 || strcmp(v + n - 5, ".prom") != 0 || v[n - 6] == '/'))
		return -EINVAL;
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(field, v);
	return 0;
}

/* Socket=: an absolute path that fits sun_path and can stand in core_pattern (no blanks, no specifiers). */
static int parse_socket(const char *v, void *field)
{
	if (v[0] != '/' || !kargs_pattern_safe(v))
		return -EINVAL;
	if (strlen(v) >= SOCKET_PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(field, v);
	return 0;
}

/* SocketMaxParallel=: from 1 to 256 crashes at once, each a process of its own. */
static int parse_parallel(const char *v, void *field)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0)
		return -EINVAL;
	if (n < 1 || n > 256)
		return -ERANGE;
	*(uint64_t *)field = n;
	return 0;
}

/* SocketMaxParallelPerUser=: 0 (half of SocketMaxParallel, the default) to 256. */
static int parse_per_user(const char *v, void *field)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0)
		return -EINVAL;
	if (n > 256)
		return -ERANGE;
	*(uint64_t *)field = n;
	return 0;
}

/* A byte count (K/M/G/T) from min to max, a whole number of step. 0, or -EINVAL or -ERANGE, *n set either way. */
static int parse_bytes_in(const char *v, uint64_t min, uint64_t max, uint64_t step, uint64_t *n)
{
	int r = parse_bytes(v, n);

	if (r < 0)
		return r;
	return *n < min || *n > max || *n % step != 0 ? -ERANGE : 0;
}

/* ChunkSize=: whole pages, from 64 KiB to 1 GiB. */
static int parse_chunk(const char *v, void *field)
{
	uint64_t n;
	int r = parse_bytes_in(v, MIN_CHUNK, MAX_CHUNK, PAGE_BYTES, &n);

	if (r == 0)
		*(size_t *)field = (size_t)n;
	return r;
}

/* KeepFree= and MaxUse=: bytes or a percentage of the file system. */
static int parse_size_or_percent(const char *v, void *field)
{
	return parse_size_spec(v, field);
}

static int parse_byte_count(const char *v, void *field)
{
	return parse_bytes(v, field);
}

static const char *const on_limit_names[] = {
	[ON_LIMIT_TRUNCATE] = "truncate",
	[ON_LIMIT_DISCARD] = "discard",
};

DEFINE_STRING_TABLE_LOOKUP(on_limit, enum on_limit, on_limit_names, _ON_LIMIT_MAX)

/* The parser and printer of a key whose values are an enum's names (its string table's). */
#define DEFINE_ENUM_KEY(name, type)                                              \
	static int parse_##name(const char *v, void *field)                      \
	{                                                                        \
		int x = name##_from_string(v);                                   \
                                                                                 \
		if (x < 0)                                                       \
			return x;                                                \
		*(type *)field = (type)x;                                        \
		return 0;                                                        \
	}                                                                        \
	static void print_##name(FILE *f, const void *field)                     \
	{                                                                        \
		fputs(name##_to_string(*(const type *)field), f);                \
	}

DEFINE_ENUM_KEY(on_limit, enum on_limit)

static const char *const storage_names[] = {
	[STORAGE_EXTERNAL] = "external",
	[STORAGE_JOURNAL] = "journal",
	[STORAGE_NONE] = "none",
};

DEFINE_STRING_TABLE_LOOKUP(storage, enum storage, storage_names, _STORAGE_MAX)

static const char *const core_names[] = {
	[CORE_FULL] = "full",
	[CORE_MINIMAL] = "minimal",
};

DEFINE_STRING_TABLE_LOOKUP(core_content, enum core_content, core_names, _CORE_MAX)
DEFINE_ENUM_KEY(storage, enum storage)
DEFINE_ENUM_KEY(core_content, enum core_content)

/* MinimalStackSizeMax=: at least a page, or the thread's frames could not be read at all. */
static int parse_stack_max(const char *v, void *field)
{
	uint64_t n;
	int r = parse_bytes_in(v, PAGE_BYTES, UINT64_MAX, 1, &n);

	if (r == 0)
		*(uint64_t *)field = n;
	return r;
}

/* ReadAhead=: auto, 0, or whole MiB (the engine's buffers) up to 64 MiB. */
static int parse_read_ahead(const char *v, void *field)
{
	uint64_t n = READ_AHEAD_AUTO;
	int r = strcmp(v, "auto") == 0 ? 0 : parse_bytes_in(v, 0, 64 << 20, 1 << 20, &n);

	if (r == 0)
		*(uint64_t *)field = n;
	return r;
}

/* ExecUpload=: a command whose words and specifiers upload.c can read, its program an absolute path; or empty. */
static int parse_exec(const char *v, void *field)
{
	const struct upload_names n = { "f", "/d", "e", "h", 1, 0, 0, "n", "o", "" };
	char buf[2048], *argv[UPLOAD_ARGS_MAX];

	if (strlen(v) >= 1024)
		return -ENAMETOOLONG;
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < ' ')
			return -EINVAL;
	if (v[0] && upload_argv(v, &n, buf, sizeof(buf), argv) < 0)
		return -EINVAL;
	strcpy(field, v);
	return 0;
}

/*
 * DebuginfodURLs=: empty (nothing leaves the machine), "system" (the URLs in the .urls files of /etc/debuginfod,
 * read when a crash comes), or http:// and https:// URLs separated by blanks, as DEBUGINFOD_URLS takes them.
 */
static int parse_urls(const char *v, void *field)
{
	char copy[1024], *save = NULL;

	if (strlen(v) >= sizeof(copy))
		return -ENAMETOOLONG;
	strcpy(copy, v);
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < ' ' || *p == '"' || *p == '\\')
			return -EINVAL;
	if (strcmp(v, "system") != 0)
		for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
			if (strncmp(w, "http://", 7) != 0 && strncmp(w, "https://", 8) != 0)
				return -EINVAL;
	strcpy(field, v);
	return 0;
}

/*
 * Encrypt=: age recipients ("age1...", as age-keygen prints them) separated by blanks, at most 16; empty for none.
 * A value that does not parse is kept, marked bad: no core is stored while it stands (never a plaintext core for a
 * typo in a key); the caller says so.
 */
static int parse_encrypt(const char *v, void *field)
{
	struct encrypt *e = field;
	char copy[sizeof(e->text)], *save = NULL;
	int r = strlen(v) < sizeof(copy) ? 0 : -ENAMETOOLONG;

	*e = (struct encrypt) { .bad = false };
	(void) snprintf(e->text, sizeof(e->text), "%s", v);
	(void) snprintf(copy, sizeof(copy), "%s", v);
	for (char *w = strtok_r(copy, " \t", &save); r == 0 && w; w = strtok_r(NULL, " \t", &save))
		r = e->n < AGE_RECIPIENTS_MAX ? age_recipient_parse(w, e->keys[e->n++]) : -E2BIG;
	if (r < 0) {
		e->n = 0;
		e->bad = true;
	}
	return r;
}

static void print_encrypt(FILE *f, const void *field)
{
	const struct encrypt *e = field;

	fputs(e->text, f);
}

/* UploadUser=: a user name as useradd takes one (it is looked up when an upload runs). */
static int parse_user_name(const char *v, void *field)
{
	size_t n = strlen(v);

	if (n == 0 || n >= 64 || v[0] == '-' ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != n)
		return -EINVAL;
	strcpy(field, v);
	return 0;
}

/* A duration (parse_duration(), a bare number in seconds) from min_us to max_us, in unit_us units, into *field. */
static int duration_in(const char *v, uint64_t min_us, uint64_t max_us, uint64_t unit_us, uint64_t *field)
{
	uint64_t usec;
	int r = parse_duration(v, 1000000, &usec);

	if (r < 0)
		return r;
	if (usec < min_us || usec > max_us)
		return -ERANGE;
	*field = usec / unit_us;
	return 0;
}

/* Seconds ("30", "30s", "5min"): systemd's RateLimitIntervalSec=; up to a year. */
static int parse_interval(const char *v, void *field)
{
	return duration_in(v, 1000000, 86400ULL * 365 * 1000000, 1000000, field);
}

/* NotifyIntervalSec=: as an interval, or 0 for every crash. */
static int parse_notify_interval(const char *v, void *field)
{
	return duration_in(v, 0, 86400ULL * 365 * 1000000, 1000000, field);
}

/* CollectTimeoutSec=: milliseconds, from 10 ms to a minute: the crashed process waits this long at most. */
static int parse_collect_timeout(const char *v, void *field)
{
	return duration_in(v, 10000, 60ULL * 1000000, 1000, field);
}

/* Milliseconds ("15", "15s", "500ms"); from 10 ms to an hour. */
static int parse_timeout(const char *v, void *field)
{
	return duration_in(v, 10000, 3600ULL * 1000000, 1000, field);
}

static int parse_burst(const char *v, void *field)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0 || n > UINT32_MAX)
		return -EINVAL;
	*(uint64_t *)field = n;
	return 0;
}

/* RateLimitUserBurst=: "half" (of RateLimitGlobalBurst, the default: RATE_USER_HALF) or a burst. */
static int parse_user_burst(const char *v, void *field)
{
	if (strcmp(v, "half") == 0) {
		*(uint64_t *)field = RATE_USER_HALF;
		return 0;
	}
	return parse_burst(v, field);
}

static int parse_threads(const char *v, void *field)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0 || n > 64)
		return -EINVAL;
	*(uint64_t *)field = n;
	return 0;
}

/*
 * zstd's own threads: the CPUs the handler may run on less two, up to 4. One CPU is the kernel's, copying the core
 * into the pipe, one the handler's, reading it and writing the file; zstd's threads only help on the others (on 2
 * CPUs, 1 GiB core-like: released in 0.94 s with none, 1.11 s with one, 1.13 s with two: docs/benchmark.md).
 */
static uint64_t default_compress_threads(void)
{
	cpu_set_t set;
	int n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;

	return n <= 2 ? 0 : n < 6 ? (uint64_t)n - 2 : 4;
}

static int parse_bool(const char *v, void *field)
{
	static const char *const yes[] = { "yes", "true", "on", "1" }, *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strcmp(v, yes[i]) == 0 || strcmp(v, no[i]) == 0) {
			*(bool *)field = strcmp(v, yes[i]) == 0;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_strategy(const char *v, void *field)
{
	int s = strategy_from_string(v);

	if (s < 0)
		return -EINVAL;
	*(enum strategy *)field = (enum strategy)s;
	return 0;
}

static int parse_file_mode(const char *v, void *field)
{
	return parse_mode(v, field);
}

static void print_string(FILE *f, const void *field)
{
	fputs(field, f);
}

static void print_size(FILE *f, const void *field)
{
	fprintf(f, "%zu", *(const size_t *)field);
}

static void print_size_spec(FILE *f, const void *field)
{
	char buf[32];

	(void) format_size_spec(buf, sizeof(buf), field);
	fputs(buf, f);
}

static void print_u64(FILE *f, const void *field)
{
	fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)field);
}

static void print_read_ahead(FILE *f, const void *field)
{
	if (*(const uint64_t *)field == READ_AHEAD_AUTO)
		fputs("auto", f);
	else
		print_u64(f, field);
}

static void print_user_burst(FILE *f, const void *field)
{
	if (*(const uint64_t *)field == RATE_USER_HALF)
		fputs("half", f);
	else
		print_u64(f, field);
}

static void print_timeout(FILE *f, const void *field)
{
	uint64_t ms = *(const uint64_t *)field;

	if (ms % 1000 == 0)
		fprintf(f, "%llus", (unsigned long long)(ms / 1000));
	else
		fprintf(f, "%llums", (unsigned long long)ms);
}

static void print_bool(FILE *f, const void *field)
{
	fputs(*(const bool *)field ? "yes" : "no", f);
}

static void print_strategy(FILE *f, const void *field)
{
	fputs(strategy_to_string(*(const enum strategy *)field), f);
}

static void print_mode(FILE *f, const void *field)
{
	fprintf(f, "%04o", (unsigned)*(const mode_t *)field);
}

#define KEY(name, parse, print, field, per_crash) { name, parse, print, offsetof(struct config, field), per_crash, false }
#define KEY_CLOSED(name, parse, print, field) { name, parse, print, offsetof(struct config, field), true, true }

static const struct key keys[] = {
	KEY("Directory", parse_directory, print_string, directory, false),
	KEY("ChunkSize", parse_chunk, print_size, chunk_size, false),
	KEY("ReadAhead", parse_read_ahead, print_read_ahead, read_ahead, true),
	KEY("KeepFree", parse_size_or_percent, print_size_spec, keep_free, false),
	KEY("MaxUse", parse_size_or_percent, print_size_spec, max_use, false),
	KEY("MaxUsePerUser", parse_size_or_percent, print_size_spec, max_use_per_user, false),
	KEY("Storage", parse_storage, print_storage, storage, true),
	KEY("JournalSizeMax", parse_byte_count, print_u64, journal_size_max, true),
	KEY("Core", parse_core_content, print_core_content, core, true),
	KEY("MinimalStackSizeMax", parse_stack_max, print_u64, minimal_stack_max, true),
	KEY("EarlyStacks", parse_bool, print_bool, early_stacks, true),
	KEY("MaxCoreSize", parse_byte_count, print_u64, max_core_size, true),
	KEY("OnLimit", parse_on_limit, print_on_limit, on_limit, true),
	KEY("Strategy", parse_strategy, print_strategy, strategy, false),
	KEY("Sparse", parse_bool, print_bool, sparse, true),
	KEY("FlushBehind", parse_bool, print_bool, flush_behind, true),
	KEY("FileMode", parse_file_mode, print_mode, file_mode, true),
	KEY("RateLimitIntervalSec", parse_interval, print_u64, rate_interval, true),
	KEY("RateLimitBurst", parse_burst, print_u64, rate_burst, true),
	KEY("RateLimitGlobalBurst", parse_burst, print_u64, rate_global_burst, false),
	KEY("RateLimitUserBurst", parse_user_burst, print_user_burst, rate_user_burst, false),
	KEY("MaxCoresPerSignature", parse_burst, print_u64, max_per_signature, true),
	KEY("SignatureIntervalSec", parse_interval, print_u64, signature_interval, true),
	KEY("CaptureEnvironment", parse_bool, print_bool, capture_environment, true),
	KEY("Compress", parse_bool, print_bool, compress, true),
	KEY("CompressThreads", parse_threads, print_u64, compress_threads, true),
	KEY_CLOSED("Encrypt", parse_encrypt, print_encrypt, encrypt),
	KEY("StackTrace", parse_bool, print_bool, stack_trace, true),
	KEY("StackTraceMaxSize", parse_byte_count, print_u64, stack_trace_max, true),
	KEY("StackTraceTimeoutSec", parse_timeout, print_timeout, stack_trace_ms, true),
	KEY("DebuginfodURLs", parse_urls, print_string, debuginfod_urls, false),
	KEY("DebuginfodTimeoutSec", parse_timeout, print_timeout, debuginfod_ms, false),
	KEY("DebuginfodMaxUse", parse_byte_count, print_u64, debuginfod_max_use, false),
	KEY("KeepModules", parse_bool, print_bool, keep_modules, false),
	KEY("ExecUpload", parse_exec, print_string, exec_upload, true),
	KEY("UploadUser", parse_user_name, print_string, upload_user, true),
	KEY("UploadTimeoutSec", parse_timeout, print_timeout, upload_timeout_ms, true),
	KEY("KeepAfterUpload", parse_bool, print_bool, keep_after_upload, true),
	KEY("NotifyDirectory", parse_notify_dir, print_string, notify_dir, false),
	KEY("NotifyIntervalSec", parse_notify_interval, print_u64, notify_interval, false),
	KEY("NotifyTimeoutSec", parse_timeout, print_timeout, notify_timeout_ms, false),
	KEY("CollectDirectory", parse_notify_dir, print_string, collect_dir, false),
	KEY("CollectUser", parse_user_name, print_string, collect_user, false),
	KEY("CollectTimeoutSec", parse_collect_timeout, print_timeout, collect_timeout_ms, false),
	KEY("MetricsFile", parse_metrics_file, print_string, metrics_file, false),
	KEY("Socket", parse_socket, print_string, socket, false),
	KEY("SocketMaxParallel", parse_parallel, print_u64, socket_parallel, false),
	KEY("SocketMaxParallelPerUser", parse_per_user, print_u64, socket_parallel_per_user, false),
	KEY("SocketTimeoutSec", parse_timeout, print_timeout, socket_timeout_ms, false),
	KEY("SocketSilenceSec", parse_timeout, print_timeout, socket_silence_ms, false),
};

void config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->directory, "/var/lib/coresink");
	c->chunk_size = 16 << 20;
	/* Socket mode: what the kernel would otherwise stop for while a chunk is flushed (docs/benchmark.md: read-ahead). */
	c->read_ahead = READ_AHEAD_AUTO;
	/* systemd-coredump's default: 15% of the file system, at most 4 GiB. */
	c->keep_free = (struct size_spec) { .value = 15, .percent = true, .cap = 4ULL << 30 };
	/* And its MaxUse=: 10%, at most 4 GiB. */
	c->max_use = (struct size_spec) { .value = 10, .percent = true, .cap = 4ULL << 30 };
	/* Half of MaxUse: one user's crash loop makes room from its own cores past it, never from everyone's. */
	c->max_use_per_user = (struct size_spec) { .value = 50, .percent = true, .cap = UINT64_MAX };
	c->max_core_size = 32ULL << 30;
	c->on_limit = ON_LIMIT_TRUNCATE;
	/* What stored real crashes fastest here, and can leave holes (docs/benchmark.md). */
	c->strategy = STRATEGY_READWRITE;
	c->sparse = true;
	/* The final sync waited 0.48-0.62 s for the disk's cache after a 1 GiB core; 15 ms with it (write/flush.c). */
	c->flush_behind = true;
	c->file_mode = 0640;
	/* A crash-looping service keeps 5 cores a minute; 20 a minute for all of them together. */
	c->rate_interval = 60;
	c->rate_burst = 5;
	c->rate_global_burst = 20;
	/* One user's crash loops are limited before the global budget is used up: half of it stays for the others. */
	c->rate_user_burst = RATE_USER_HALF;
	/* Every core of a known bug is kept unless asked; asked, the count is per day. */
	c->max_per_signature = 0;
	c->signature_interval = 86400;
	/* systemd-coredump's default: cores several times smaller, which coredumpctl dump and debug read. */
	c->compress = true;
	c->compress_threads = default_compress_threads();
	/* The trace is what an admin reads first; it is made after the process is released, in a sandbox. */
	c->stack_trace = true;
	c->stack_trace_max = 4ULL << 30;
	c->stack_trace_ms = 15000;
	/* Nothing leaves the machine unless the admin says so; then a crash's fetch is bounded as its analysis is. */
	c->debuginfod_urls[0] = '\0';
	c->debuginfod_ms = 15000;
	c->debuginfod_max_use = 1ULL << 30;
	/* A module replaced since its process started is copied only when asked: it takes room in MaxUse. */
	c->keep_modules = false;
	/* Socket mode: the path the unit files and coresink --core-pattern --socket use. */
	strcpy(c->socket, "/run/coresink/kernel.socket");
	/* Two cores' worth of copying and analysis each; a storm waits in the listen queue, which the kernel sizes. */
	c->socket_parallel = 4;
	/* systemd-coredump's RuntimeMaxSec: a capture that hangs must not hold its slot forever. */
	c->socket_timeout_ms = 5 * 60 * 1000;
	/* A dump that says nothing this long is read so slowly (a FUSE mapping's) that it would hold its slot. */
	c->socket_silence_ms = 15 * 1000;
	c->storage = STORAGE_EXTERNAL;
	c->core = CORE_FULL;
	/* systemd-coredump's JournalSizeMax=: journald takes no entry above 768 MiB. */
	c->journal_size_max = 767ULL << 20;
	/* No upload unless asked; then as the user make install creates for it, within two minutes. */
	strcpy(c->upload_user, UPLOAD_USER);
	c->upload_timeout_ms = 120 * 1000;
	c->keep_after_upload = true;
	/* Notifiers, where the admin put some; a crash loop is told of once an hour. */
	strcpy(c->notify_dir, NOTIFY_DEFAULT_DIR);
	c->notify_interval = 3600;
	c->notify_timeout_ms = 30 * 1000;
	/* Collect hooks, where the admin put some, as UploadUser's default; the process held 2 s for them at most. */
	strcpy(c->collect_dir, COLLECT_DEFAULT_DIR);
	strcpy(c->collect_user, UPLOAD_USER);
	c->collect_timeout_ms = 2 * 1000;
	/* Exported where node_exporter reads, when it is installed; nothing written otherwise. */
	strcpy(c->metrics_file, "auto");
	/* glibc's and the kernel's default stack: a thread's whole stack, at most. */
	c->minimal_stack_max = 8ULL << 20;
	c->early_stacks = true;
}

/* The table's row i, in its order; NULL past its end. */
const struct key *config_key_at(size_t i)
{
	return i < ELEMENTSOF(keys) ? &keys[i] : NULL;
}

const struct key *config_key_find(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

void config_free(struct config *c)
{
	free(c->rules);
	c->rules = NULL;
	c->n_rules = 0;
}
