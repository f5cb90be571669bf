/*
 * escape.c: text a crashing process controls (its name, paths, command line, environment), made safe for the
 * journal and the kernel log, the same way everywhere: the result is valid UTF-8 without control characters, so
 * that journalctl, coredumpctl list, info and --json show every entry. A byte that is not part of valid UTF-8 and
 * every control character (C0, DEL, C1) becomes "\xNN"; newline and tab become "\n" and "\t" unless the field is
 * multi-line. With ESCAPE_BACKSLASH a backslash becomes "\\", so that no input can pass for another one's escape.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

/*
 * The length of the valid UTF-8 sequence at p (1 to 4) within its left bytes, its code point in *cp; 0 when the byte
 * at p does not start one (left 0 included).
 */
size_t escape_utf8(const char *s, size_t left, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	uint32_t c, min;

	if (left == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, c = p[0] & 0x1f, min = 0x80;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, c = p[0] & 0x0f, min = 0x800;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, c = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and code points past Unicode are not valid UTF-8. */
	if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

/* Whether c is a control character: C0, DEL or C1, any of which a terminal may act on. */
bool escape_is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

/* Where the output goes: out holds len bytes; pos counts every byte, kept only while all of them fit. */
struct sink {
	char *out;
	size_t len, pos, kept;
};

/* Appends s (n bytes) whole, or nothing once something did not fit: the output never ends inside an escape. */
static void put(struct sink *k, const void *s, size_t n)
{
	if (k->kept == k->pos && k->pos + n < k->len) {
		memcpy(k->out + k->pos, s, n);
		k->kept += n;
	}
	k->pos += n;
}

/* Appends the escaped form of the n bytes at p, which are one character or one invalid byte. */
static void put_escaped(struct sink *k, const unsigned char *p, size_t n)
{
	char hex[ESCAPE_GROWTH + 1];

	if (n == 1 && (p[0] == '\n' || p[0] == '\t')) {
		put(k, p[0] == '\n' ? "\\n" : "\\t", 2);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		(void) snprintf(hex, sizeof(hex), "\\x%02x", p[i]);
		put(k, hex, ESCAPE_GROWTH);
	}
}

/*
 * Writes the escaped form of in into out (len bytes, NUL-terminated when len > 0) and returns its length, which
 * is at most ESCAPE_GROWTH times strlen(in); like snprintf, a return of len or more means it was cut.
 */
size_t escape_text(char *out, size_t len, const char *in, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)(in ? in : "");
	struct sink k = { .out = out, .len = len };

	while (*p) {
		uint32_t c = 0;
		size_t n = escape_utf8((const char *)p, strnlen((const char *)p, 4), &c);

		if (n == 0)
			put_escaped(&k, p, 1);
		else if (c == '\\' && (flags & ESCAPE_BACKSLASH))
			put(&k, "\\\\", 2);
		else if (escape_is_control(c) && !((flags & ESCAPE_MULTILINE) && (c == '\n' || c == '\t')))
			put_escaped(&k, p, n);
		else
			put(&k, p, n);
		p += n ? n : 1;
	}
	if (len > 0)
		out[k.kept] = '\0';
	return k.pos;
}

/* The escaped form of in, malloc'd; NULL when out of memory. */
char *escape_dup(const char *in, unsigned flags)
{
	size_t n = strlen(in ? in : "") * ESCAPE_GROWTH + 1;
	char *out = malloc(n);

	if (out)
		(void) escape_text(out, n, in, flags);
	return out;
}

/* Whether in is clean text already: valid UTF-8 without control characters, which escape_text() would keep. */
bool escape_clean(const char *in)
{
	const unsigned char *p = (const unsigned char *)in;

	while (*p) {
		uint32_t c = 0;
		size_t n = escape_utf8((const char *)p, strnlen((const char *)p, 4), &c);

		if (n == 0 || escape_is_control(c))
			return false;
		p += n;
	}
	return true;
}

/*
 * Writes s to f as escape_text() makes it (with flags): what goes to a terminal from an entry, a journal of another
 * host, or a crashing process, so that no byte of it is a terminal's command.
 */
void escape_fputs(FILE *f, const char *s, unsigned flags)
{
	char *e = escape_dup(s, flags);

	if (e)
		fputs(e, f);
	free(e);
}

/*
 * The length of path without the " (deleted)" the kernel adds to the name of a file deleted since it was mapped
 * (/proc/PID/maps, /proc/PID/exe, a core's NT_FILE), or its whole length.
 */
size_t path_undeleted(const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(path), cut = sizeof(deleted) - 1;

	return n > cut && strcmp(path + n - cut, deleted) == 0 ? n - cut : n;
}
