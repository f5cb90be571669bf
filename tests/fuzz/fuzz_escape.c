/*
 * fuzz_escape.c: libFuzzer harness for what reads bytes a crashing process controls: the escaping of journal
 * fields, and the core's notes. Invariants: the escaped text is valid UTF-8 with no control character (newline and
 * tab only in multi-line mode); one-line escaping decodes back to its input (a C0 80, a field's NUL as the entry
 * reader holds it, to a NUL), so distinct inputs stay distinct; a cut
 * output is a prefix of the whole one, never half an escape; the notes parser stays within its bytes (ASan).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "minicore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decodes one valid UTF-8 character at p into *c; its length, or 0. */
static size_t utf8(const unsigned char *p, uint32_t *c)
{
	size_t n = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 :
		   p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	uint32_t v = n == 1 ? p[0] : n == 2 ? p[0] & 0x1f : n == 3 ? p[0] & 0x0f : p[0] & 0x07;
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };

	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (n == 0 || v < min[n] || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*c = v;
	return n;
}

static void check_clean(const char *s, bool multiline)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		uint32_t c;
		size_t n = utf8(p, &c);

		if (n == 0)
			abort();
		if ((c < 0x20 || (c >= 0x7f && c <= 0x9f)) && !(multiline && (c == '\n' || c == '\t')))
			abort();
		p += n;
	}
}

static int hex(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/*
 * What escaping shows of in, as bytes: in itself, but for each C0 80 (a field's NUL as record_read holds it in a C
 * string) read left to right, a NUL. Into want; its length.
 */
static size_t held_as(const char *in, char *want)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p; p++)
		if (p[0] == 0xc0 && p[1] == 0x80)
			want[n++] = '\0', p++;
		else
			want[n++] = (char)*p;
	return n;
}

/* Undoes one-line escaping into out (*len bytes); false when the text holds an escape that escaping cannot write. */
static bool unescape(const char *s, char *out, size_t *len)
{
	char *const start = out;

	while (*s) {
		if (*s != '\\') {
			*out++ = *s++;
			continue;
		}
		if (s[1] == '\\' || s[1] == 'n' || s[1] == 't') {
			*out++ = s[1] == '\\' ? '\\' : s[1] == 'n' ? '\n' : '\t';
			s += 2;
		} else if (s[1] == 'x' && hex(s[2]) >= 0 && hex(s[3]) >= 0) {
			*out++ = (char)(hex(s[2]) * 16 + hex(s[3]));
			s += 4;
		} else {
			return false;
		}
	}
	*out = '\0';
	*len = (size_t)(out - start);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *one, *multi, *back, *want, cut[17];
	struct core_signal sig;
	size_t whole, n;

	(void) elfcore_siginfo(data, size, &sig);
	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	one = escape_dup(in, ESCAPE_BACKSLASH);
	multi = escape_dup(in, ESCAPE_MULTILINE);
	back = malloc(size + 1);
	want = malloc(size + 1);
	if (!one || !multi || !back || !want)
		abort();
	check_clean(one, false);
	check_clean(multi, true);
	if (!unescape(one, back, &n) || n != held_as(in, want) || memcmp(back, want, n) != 0)
		abort();
	whole = escape_text(cut, sizeof(cut), in, ESCAPE_BACKSLASH);
	if (whole != strlen(one) || strncmp(cut, one, strlen(cut)) != 0 || strlen(cut) >= sizeof(cut))
		abort();
	free(in);
	free(one);
	free(multi);
	free(back);
	free(want);
	return 0;
}
