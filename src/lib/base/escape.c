/*
 * escape.c: text a crashing process controls (its name, paths, command line, environment), made safe for the
 * journal and the kernel log, the same way everywhere: the result is valid UTF-8 without control characters, so
 * that journalctl, coredumpctl list, info and --json show every entry. A byte that is not part of valid UTF-8 and
 * every control character (C0, DEL, C1, the bidirectional controls and line separators: escape_is_control) becomes
 * "\xNN"; newline and tab become "\n" and "\t" unless the field is multi-line. With ESCAPE_BACKSLASH a backslash
 * becomes "\\", so that no input can pass for another one's escape. escape_json() writes any bytes as one valid
 * JSON string by the same rules: the project's one JSON string writer.
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

/*
 * Whether c is a control character: C0, DEL or C1, any of which a terminal may act on; or one that makes text say
 * what its bytes do not: the bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E-200F,
 * U+202A-202E, U+2066-2069: "Trojan Source", a name shown backwards) and the line and paragraph separators
 * (U+2028-2029: a second line where a reader expects one).
 */
bool escape_is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x061c || c == 0x200e || c == 0x200f ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
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

		/* A NUL of a field, held in a C string as C0 80 (record_read), is shown as one. */
		if (p[0] == 0xc0 && p[1] == 0x80)
			put(&k, "\\x00", ESCAPE_GROWTH), n = 2;
		else if (n == 0)
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

/* Whether the n bytes at s are valid UTF-8 (NULs and controls are). */
static bool utf8_valid(const char *s, size_t n)
{
	for (size_t i = 0, k; i < n; i += k) {
		uint32_t c;

		k = (unsigned char)s[i] == 0xc0 && i + 1 < n && (unsigned char)s[i + 1] == 0x80 ? 2 :
		    escape_utf8(s + i, n - i, &c);
		if (k == 0)
			return false;
	}
	return true;
}

/*
 * Writes the n bytes at s (any bytes) to f as one valid JSON value, the project's one JSON string writer: valid
 * UTF-8 as a string, the quote, the backslash and every control character (escape_is_control: C0, DEL, C1, the
 * bidirectional controls, the line separators; NUL too, also where a C string holds it as C0 80, as record_read()
 * does) escaped as \uXXXX; bytes that are not UTF-8 as an array of the bytes' numbers, as journalctl -o json writes
 * such a field, so that no two inputs give the same text.
 */
void escape_json(FILE *f, const char *s, size_t n)
{
	if (!utf8_valid(s, n)) {
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%c%u", i ? ',' : '[', (unsigned char)s[i]);
		fputs(n ? "]" : "[]", f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0, k; i < n; i += k) {
		uint32_t c = 0;

		k = (unsigned char)s[i] == 0xc0 && i + 1 < n ? 2 : escape_utf8(s + i, n - i, &c);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", (char)c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (escape_is_control(c))
			fprintf(f, "\\u%04x", (unsigned)c);
		else
			(void) fwrite(s + i, 1, k, f);
	}
	fputc('"', f);
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
