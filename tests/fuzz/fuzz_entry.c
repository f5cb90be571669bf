/*
 * fuzz_entry.c: libFuzzer harness for the entry reader root's tools run on any journal's entries (a user's, another
 * host's): fields of any bytes and lengths, NULs included, read into a record (coresinkctl's record_read()), judged by
 * the trust rule's canonical form and seals (origin.c), and shown every way list and info show one, as text and as
 * JSON, and grouped as summary groups crashes (summary_of()). Invariants: the text is valid UTF-8 with no control character but newline; the JSON is valid JSON (checked
 * here by a small parser) with no raw control character (C0, DEL, C1); a seal of an entry's fields matches it, and no longer once one
 * byte of one field differs; nothing reads out of bounds (ASan).
 * Input: records of a name index byte (into the known field names), a 16-bit length, and that many value bytes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "summary.h"
#include "base.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"MESSAGE", "COREDUMP_PID", "COREDUMP_UID", "COREDUMP_GID", "COREDUMP_SIGNAL", "COREDUMP_TIMESTAMP",
	"COREDUMP_EXE", "COREDUMP_COMM", "COREDUMP_CMDLINE", "COREDUMP_CGROUP", "COREDUMP_UNIT", "COREDUMP_HOSTNAME",
	"COREDUMP_FILENAME", "CORESINK_RESULT", "CORESINK_ENTRY", "CORESINK_SIGNATURE", "CORESINK_SIZE",
	"COREDUMP_PACKAGE_NAME", "COREDUMP_PACKAGE_VERSION", "_MACHINE_ID", "_BOOT_ID", "COREDUMP_SLICE",
	"COREDUMP_OWNER_UID", "COREDUMP_TRUNCATED", "COREDUMP", "CORESINK_CONTAINER_RUNTIME", "CORESINK_CONTAINER_ID",
	"CORESINK_CONTAINER_NAME", "CORESINK_CONTAINER_IMAGE", "CORESINK_POD_NAME", "CORESINK_POD_NAMESPACE",
	"CORESINK_POD_LABELS", "CORESINK_SIGNATURE_TEXT", "CORESINK_SIGNATURE_KEYS", "CORESINK_SIGNATURE_FROM",
	"CORESINK_STORAGE", "COREDUMP_USER_UNIT",
};
#define N_NAMES (sizeof(names) / sizeof(names[0]))

struct entry {
	char *field[N_NAMES];     /* "NAME=value", value any bytes */
	size_t len[N_NAMES];
};

static int get(void *ctx, const char *name, const void **data, size_t *len)
{
	struct entry *e = ctx;

	for (size_t i = 0; i < N_NAMES; i++)
		if (e->field[i] && strcmp(names[i], name) == 0) {
			*data = e->field[i];
			*len = e->len[i];
			return 0;
		}
	return -2;
}

static void parse(const uint8_t *data, size_t size, struct entry *e)
{
	while (size >= 3) {
		size_t i = data[0] % N_NAMES, n = (size_t)data[1] | (size_t)data[2] << 8, k = strlen(names[i]);

		data += 3, size -= 3;
		if (n > size)
			n = size;
		free(e->field[i]);
		e->field[i] = malloc(k + 1 + n);
		memcpy(e->field[i], names[i], k);
		e->field[i][k] = '=';
		memcpy(e->field[i] + k + 1, data, n);
		e->len[i] = k + 1 + n;
		data += n, size -= n;
	}
}

/* Text for a terminal: valid UTF-8, no control character but newline. */
static void check_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t c = 0;
		size_t k = escape_utf8(s + i, n - i, &c);

		if (k == 0 || (escape_is_control(c) && c != '\n'))
			abort();
		i += k;
	}
}

/* A small JSON parser, enough to say whether the output is JSON. Each returns the position after, or NULL. */
static const char *value(const char *p, const char *end);

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static const char *string(const char *p, const char *end)
{
	if (p >= end || *p++ != '"')
		return NULL;
	while (p < end && *p != '"') {
		uint32_t c = 0;
		size_t k = escape_utf8(p, (size_t)(end - p), &c);

		/* Valid JSON takes DEL and C1 raw; ours escapes them, as a terminal would act on them. */
		if (k == 0 || escape_is_control(c))
			return NULL;
		if (c == '\\') {
			if (++p >= end)
				return NULL;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (p + i >= end || !strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 5;
				continue;
			}
			if (!strchr("\"\\/bfnrt", *p) || !*p)
				return NULL;
			p++;
			continue;
		}
		p += k;
	}
	return p < end ? p + 1 : NULL;
}

static const char *number(const char *p, const char *end)
{
	const char *start = p;

	if (p < end && *p == '-')
		p++;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p > start && p[-1] != '-' ? p : NULL;
}

static const char *items(const char *p, const char *end, char close, bool keys)
{
	p = ws(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (keys) {
			p = string(ws(p, end), end);
			p = p ? ws(p, end) : NULL;
			if (!p || p >= end || *p++ != ':')
				return NULL;
		}
		p = value(p, end);
		if (!p)
			return NULL;
		p = ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		return p < end && *p == close ? p + 1 : NULL;
	}
}

static const char *value(const char *p, const char *end)
{
	p = ws(p, end);
	if (p >= end)
		return NULL;
	if (*p == '{')
		return items(p, end, '}', true);
	if (*p == '[')
		return items(p, end, ']', false);
	if (*p == '"')
		return string(p, end);
	if ((size_t)(end - p) >= 4 && (memcmp(p, "null", 4) == 0 || memcmp(p, "true", 4) == 0))
		return p + 4;
	if ((size_t)(end - p) >= 5 && memcmp(p, "false", 5) == 0)
		return p + 5;
	return number(p, end);
}

/* One JSON value a line (info), or one value (list). */
static void check_json(const char *s, size_t n, bool lines)
{
	const char *p = s, *end = s + n;

	while ((p = ws(p, end)) < end) {
		p = value(p, end);
		if (!p)
			abort();
		if (!lines)
			break;
	}
	if (ws(p, end) != end)
		abort();
}

static void show(const struct found *f, int how)
{
	char *out = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&out, &n);

	if (!m)
		return;
	if (how < 3)
		show_list(m, f, -1, NULL, true, (enum json_mode)how);
	else
		show_info(m, f, -1, (enum json_mode)(how - 3));
	if (fclose(m) != 0)
		abort();
	if (how == 0 || how == 3)
		check_text(out, n);
	else
		check_json(out, n, how > 3);
	free(out);
}

/* summary of the entry, twice (one group of two crashes), as a table and as JSON: text and JSON as show()'s. */
static void summarize(struct entry *e)
{
	void *const ctxs[] = { e, e };
	const uint64_t usec[] = { 1000000, 2000000 };

	for (int json = 0; json <= 1; json++) {
		char *out = NULL;
		size_t n = 0;
		FILE *m = open_memstream(&out, &n);

		if (!m)
			return;
		if (summary_of(get, ctxs, usec, 2, m, json) < 0) {
			fclose(m);
			free(out);
			return;
		}
		if (fclose(m) != 0)
			abort();
		if (json)
			check_json(out, n, false);
		else
			check_text(out, n);
		free(out);
	}
}

/*
 * The trust rule's form of the entry, by each version's rule: a seal of it matches it, and not once a byte of a
 * field it seals differs (the core an entry holds among them, from version 2 on).
 */
static void check_seal(struct entry *e, unsigned version)
{
	struct seal s = { .version = version, .id = (char *)"00112233445566778899aabbccddeeff", .uid = (char *)"1000" };
	const struct seals seals = { &s, 1 };
	const struct seal *which = NULL;

	if (origin_canon(get, e, "", version, &s.canon, &s.canon_len) < 0)
		return;
	if (!origin_sealed_by(&seals, s.id, "1000", get, e, &which))
		abort();
	for (size_t i = 0; i < N_NAMES; i++)
		if (e->field[i] && e->len[i] > strlen(names[i]) + 1) {
			const bool unsealed = strcmp(names[i], "_MACHINE_ID") == 0 || strcmp(names[i], "_BOOT_ID") == 0 ||
					      strcmp(names[i], "CORESINK_ENTRY") == 0 ||
					      (version < 2 && strcmp(names[i], "COREDUMP") == 0);

			e->field[i][e->len[i] - 1] ^= 1;
			if (!unsealed && origin_sealed_by(&seals, s.id, "1000", get, e, &which))
				abort();
			e->field[i][e->len[i] - 1] ^= 1;
			break;
		}
	free(s.canon);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct entry e = { { NULL } };
	struct record r = { 0 };
	struct found f = { .c = &r, .n = 1 };

	parse(data, size, &e);
	if (record_read(&r, get, &e) == 0) {
		r.cursor = strdup("s=0");
		for (int how = 0; how < 6; how++)
			show(&f, how);
		record_free(&r);
	}
	summarize(&e);
	check_seal(&e, 1);
	check_seal(&e, ORIGIN_SEAL_VERSION);
	for (size_t i = 0; i < N_NAMES; i++)
		free(e.field[i]);
	return 0;
}
