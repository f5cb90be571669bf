/*
 * config.c: the configuration file, systemd style: a [Coresink] section of Key=Value lines. Every key is a row of
 * one table (name, parser, field). A bad line is reported and skipped, so the field keeps its default: a typo
 * must never cost a core.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "basics.h"
#include "config.h"
#include "kargs.h"

#define MIN_CHUNK (64 * 1024)
#define MAX_CHUNK (1024 * 1024 * 1024)

typedef int (*parser_fn)(const char *value, void *field);
typedef void (*printer_fn)(FILE *f, const void *field);

struct key {
	const char *name;
	parser_fn parse;
	printer_fn print;
	size_t offset;
};

static int parse_directory(const char *v, void *field)
{
	if (v[0] != '/')
		return -EINVAL;
	if (strlen(v) >= PATH_MAX)
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

static int parse_chunk(const char *v, void *field)
{
	uint64_t n;
	int r = parse_bytes(v, &n);

	if (r < 0)
		return r;
	if (n < MIN_CHUNK || n > MAX_CHUNK || n % PAGE_BYTES != 0)
		return -ERANGE;
	*(size_t *)field = (size_t)n;
	return 0;
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

static int parse_on_limit(const char *v, void *field)
{
	int l = on_limit_from_string(v);

	if (l < 0)
		return l;
	*(enum on_limit *)field = (enum on_limit)l;
	return 0;
}

/* Seconds, optionally with an "s": systemd's RateLimitIntervalSec= in its plainest form. */
static int parse_interval(const char *v, void *field)
{
	size_t n = strspn(v, "0123456789");
	uint64_t sec;

	if (n == 0 || n >= 24 || (v[n] != '\0' && strcmp(v + n, "s") != 0))
		return -EINVAL;
	if (parse_u64_prefix(v, n, &sec) < 0 || sec == 0 || sec > 86400 * 365)
		return -ERANGE;
	*(uint64_t *)field = sec;
	return 0;
}

/* A duration in milliseconds: "15", "15s" or "500ms"; from 10 ms to an hour. */
static int parse_timeout(const char *v, void *field)
{
	size_t n = strspn(v, "0123456789");
	uint64_t t, scale;

	if (n == 0 || n >= 24)
		return -EINVAL;
	if (v[n] == '\0' || strcmp(v + n, "s") == 0)
		scale = 1000;
	else if (strcmp(v + n, "ms") == 0)
		scale = 1;
	else
		return -EINVAL;
	if (parse_u64_prefix(v, n, &t) < 0 || t > 3600000 / scale || t * scale < 10)
		return -ERANGE;
	*(uint64_t *)field = t * scale;
	return 0;
}

static int parse_burst(const char *v, void *field)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0 || n > UINT32_MAX)
		return -EINVAL;
	*(uint64_t *)field = n;
	return 0;
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

static void print_timeout(FILE *f, const void *field)
{
	uint64_t ms = *(const uint64_t *)field;

	if (ms % 1000 == 0)
		fprintf(f, "%llus", (unsigned long long)(ms / 1000));
	else
		fprintf(f, "%llums", (unsigned long long)ms);
}

static void print_on_limit(FILE *f, const void *field)
{
	fputs(on_limit_to_string(*(const enum on_limit *)field), f);
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

static const struct key keys[] = {
	{ "Directory", parse_directory, print_string, offsetof(struct config, directory) },
	{ "ChunkSize", parse_chunk, print_size, offsetof(struct config, chunk_size) },
	{ "KeepFree", parse_size_or_percent, print_size_spec, offsetof(struct config, keep_free) },
	{ "MaxUse", parse_size_or_percent, print_size_spec, offsetof(struct config, max_use) },
	{ "MaxCoreSize", parse_byte_count, print_u64, offsetof(struct config, max_core_size) },
	{ "OnLimit", parse_on_limit, print_on_limit, offsetof(struct config, on_limit) },
	{ "Strategy", parse_strategy, print_strategy, offsetof(struct config, strategy) },
	{ "Sparse", parse_bool, print_bool, offsetof(struct config, sparse) },
	{ "FileMode", parse_file_mode, print_mode, offsetof(struct config, file_mode) },
	{ "RateLimitIntervalSec", parse_interval, print_u64, offsetof(struct config, rate_interval) },
	{ "RateLimitBurst", parse_burst, print_u64, offsetof(struct config, rate_burst) },
	{ "RateLimitGlobalBurst", parse_burst, print_u64, offsetof(struct config, rate_global_burst) },
	{ "CaptureEnvironment", parse_bool, print_bool, offsetof(struct config, capture_environment) },
	{ "Compress", parse_bool, print_bool, offsetof(struct config, compress) },
	{ "StackTrace", parse_bool, print_bool, offsetof(struct config, stack_trace) },
	{ "StackTraceMaxSize", parse_byte_count, print_u64, offsetof(struct config, stack_trace_max) },
	{ "StackTraceTimeoutSec", parse_timeout, print_timeout, offsetof(struct config, stack_trace_ms) },
	{ "Socket", parse_socket, print_string, offsetof(struct config, socket) },
	{ "SocketMaxParallel", parse_parallel, print_u64, offsetof(struct config, socket_parallel) },
	{ "SocketTimeoutSec", parse_timeout, print_timeout, offsetof(struct config, socket_timeout_ms) },
};

void config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->directory, "/var/lib/coresink");
	c->chunk_size = 16 << 20;
	/* systemd-coredump's default: 15% of the file system, at most 4 GiB. */
	c->keep_free = (struct size_spec) { .value = 15, .percent = true, .cap = 4ULL << 30 };
	/* And its MaxUse=: 10%, at most 4 GiB. */
	c->max_use = (struct size_spec) { .value = 10, .percent = true, .cap = 4ULL << 30 };
	c->max_core_size = 32ULL << 30;
	c->on_limit = ON_LIMIT_TRUNCATE;
	/* What stored real crashes fastest here, and can leave holes (README: Benchmark). */
	c->strategy = STRATEGY_READWRITE;
	c->sparse = true;
	c->file_mode = 0640;
	/* A crash-looping service keeps 5 cores a minute; 20 a minute for all of them together. */
	c->rate_interval = 60;
	c->rate_burst = 5;
	c->rate_global_burst = 20;
	/* systemd-coredump's default: cores several times smaller, which coredumpctl dump and debug read. */
	c->compress = true;
	/* The trace is what an admin reads first; it is made after the process is released, in a sandbox. */
	c->stack_trace = true;
	c->stack_trace_max = 4ULL << 30;
	c->stack_trace_ms = 15000;
	/* Socket mode: the path the unit files and coresink --core-pattern --socket use. */
	strcpy(c->socket, "/run/coresink/kernel.socket");
	/* Two cores' worth of copying and analysis each; a storm waits in the listen queue, which the kernel sizes. */
	c->socket_parallel = 4;
	/* systemd-coredump's RuntimeMaxSec: a capture that hangs must not hold its slot forever. */
	c->socket_timeout_ms = 5 * 60 * 1000;
}

static char *strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static const struct key *find_key(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* Applies one line. Returns 0, or -EINVAL when the line was reported in d and ignored. */
int config_parse_line(struct config *c, const char *file, unsigned line, char *text, int *in_section,
		      struct diag *d)
{
	char *s = strip(text), *eq, *val;
	const struct key *k;

	if (*s == '\0' || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		*in_section = strcmp(s, "[Coresink]") == 0;
		if (*in_section)
			return 0;
		diag_add(d, "%s:%u: unknown section %.64s, its keys are ignored", file, line, s);
		return -EINVAL;
	}
	if (!*in_section)
		return 0;
	eq = strchr(s, '=');
	if (!eq) {
		diag_add(d, "%s:%u: not Key=Value, ignored", file, line);
		return -EINVAL;
	}
	*eq = '\0';
	val = strip(eq + 1);
	k = find_key(strip(s));
	if (!k) {
		diag_add(d, "%s:%u: unknown key '%.64s', ignored", file, line, strip(s));
		return -EINVAL;
	}
	if (k->parse(val, (char *)c + k->offset) < 0) {
		diag_add(d, "%s:%u: bad value '%.64s' for %s, default kept", file, line, val, k->name);
		return -EINVAL;
	}
	return 0;
}

/* Reads path into c (which holds the defaults). Returns 0, or -errno when the file cannot be read. */
int config_load(struct config *c, const char *path, struct diag *d)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t cap = 0;
	unsigned line = 0;
	int in_section = 0;

	int r = 0;

	if (!f)
		return -errno;
	errno = 0;
	while (getline(&text, &cap, f) >= 0)
		(void) config_parse_line(c, path, ++line, text, &in_section, d);
	/* A directory opens, then fails to read: that is no config file either. */
	if (ferror(f))
		r = errno ? -errno : -EIO;
	free(text);
	(void) fclose(f);
	return r;
}

/*
 * The defaults, then path over them. A missing default file is no problem (defaults are a valid configuration);
 * a missing file the user named, or one that cannot be read, is reported in d.
 */
void config_read(struct config *c, const char *path, bool named, struct diag *d)
{
	int r;

	config_defaults(c);
	r = config_load(c, path, d);
	if (r < 0 && (named || r != -ENOENT))
		diag_add(d, "cannot read %s: %s", path, strerror(-r));
}

/* Prints the effective configuration as a config file would say it: every key of the table, in its order. */
void config_print(const struct config *c, FILE *f)
{
	fprintf(f, "[Coresink]\n");
	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		fprintf(f, "%s=", keys[i].name);
		keys[i].print(f, (const char *)c + keys[i].offset);
		fputc('\n', f);
	}
	if (c->keep_free.cap != UINT64_MAX)
		fprintf(f, "# KeepFree is the default, capped at %llu bytes\n", (unsigned long long)c->keep_free.cap);
	if (c->max_use.cap != UINT64_MAX)
		fprintf(f, "# MaxUse is the default, capped at %llu bytes\n", (unsigned long long)c->max_use.cap);
}
