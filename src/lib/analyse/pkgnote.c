/*
 * pkgnote.c: the ELF package note that distributions put in their binaries (systemd.io/ELF_PACKAGE_METADATA): a
 * JSON object of strings, {"type":"deb","name":"foo","version":"1.2-3","architecture":"amd64",...}. It comes from
 * a file the crashed process mapped, so it is hostile input: only a flat object of strings within fixed bounds is
 * taken, each string valid UTF-8 without control characters, and it is written back by this file, never passed
 * through. Anything else is no package note.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base.h"
#include "pkgnote.h"

struct cursor {
	const char *p, *end;
};

static void skip_space(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static bool take(struct cursor *c, char ch)
{
	skip_space(c);
	if (c->p >= c->end || *c->p != ch)
		return false;
	c->p++;
	return true;
}

static int hex4(const char *p, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char ch = p[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
			ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;

		if (d < 0)
			return -EBADMSG;
		*v = *v << 4 | (uint32_t)d;
	}
	return 0;
}

/* Appends code point cp as UTF-8 to out (size bytes, *n used). Surrogates are refused. */
static int put_utf8(char *out, size_t size, size_t *n, uint32_t cp)
{
	unsigned char b[4];
	size_t k;

	if (cp >= 0xd800 && cp <= 0xdfff)
		return -EBADMSG;
	if (cp < 0x80)
		b[0] = (unsigned char)cp, k = 1;
	else if (cp < 0x800)
		b[0] = (unsigned char)(0xc0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 0x3f)), k = 2;
	else
		b[0] = (unsigned char)(0xe0 | cp >> 12), b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)),
		b[2] = (unsigned char)(0x80 | (cp & 0x3f)), k = 3;
	if (*n + k >= size)
		return -E2BIG;
	memcpy(out + *n, b, k);
	*n += k;
	return 0;
}

/* One escape after a backslash. */
static int unescape(struct cursor *c, char *out, size_t size, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	uint32_t cp;

	if (c->p >= c->end)
		return -EBADMSG;
	if (*c->p == 'u') {
		if (c->end - c->p < 5 || hex4(c->p + 1, &cp) < 0)
			return -EBADMSG;
		c->p += 5;
		return put_utf8(out, size, n, cp);
	}
	e = strchr(from, *c->p);
	if (!e || !*c->p)
		return -EBADMSG;
	c->p++;
	return put_utf8(out, size, n, (unsigned char)to[e - from]);
}

/* A JSON string into out, which must then be clean text (valid UTF-8, no control characters). */
static int string(struct cursor *c, char *out, size_t size)
{
	size_t n = 0;
	int r;

	if (!take(c, '"'))
		return -EBADMSG;
	while (c->p < c->end && *c->p != '"') {
		if (*c->p == '\\') {
			c->p++;
			r = unescape(c, out, size, &n);
			if (r < 0)
				return r;
			continue;
		}
		if (n + 1 >= size)
			return -E2BIG;
		out[n++] = *c->p++;
	}
	if (c->p >= c->end)
		return -EBADMSG;
	c->p++;
	out[n] = '\0';
	return strlen(out) == n && escape_clean(out) ? 0 : -EBADMSG;
}

/* Reads the payload (len bytes, NUL padding allowed) into p. 0 or -EBADMSG/-E2BIG. */
int pkgnote_parse(const char *payload, size_t len, struct pkgnote *p)
{
	struct cursor c = { payload, payload + len };
	int r;

	/* The note's descriptor is padded with NULs to a multiple of 4. */
	while (c.end > c.p && c.end[-1] == '\0')
		c.end--;
	p->n = 0;
	if (!take(&c, '{'))
		return -EBADMSG;
	if (take(&c, '}'))
		return c.p == c.end || (skip_space(&c), c.p == c.end) ? 0 : -EBADMSG;
	do {
		if (p->n >= PKGNOTE_PAIRS)
			return -E2BIG;
		r = string(&c, p->key[p->n], PKGNOTE_KEY);
		if (r == 0)
			r = take(&c, ':') ? string(&c, p->value[p->n], PKGNOTE_VALUE) : -EBADMSG;
		if (r < 0)
			return r;
		p->n++;
	} while (take(&c, ','));
	if (!take(&c, '}'))
		return -EBADMSG;
	skip_space(&c);
	return c.p == c.end ? 0 : -EBADMSG;
}

/* The value of key, or NULL. */
const char *pkgnote_get(const struct pkgnote *p, const char *key)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->key[i], key) == 0)
			return p->value[i];
	return NULL;
}

/* Writes "module":{"buildId":"...",...the note's pairs} (module must be clean text, as escape_clean() says). */
void pkgnote_json(FILE *f, const char *module, const struct pkgnote *p, const char *build_id)
{
	bool id = build_id && build_id[0], first = !id;

	escape_json(f, module, strlen(module));
	fputs(":{", f);
	if (id) {
		fputs("\"buildId\":", f);
		escape_json(f, build_id, strlen(build_id));
	}
	for (int i = 0; i < p->n; i++) {
		/* The build-id read from the module wins over one the note claims. */
		if (id && strcmp(p->key[i], "buildId") == 0)
			continue;
		if (!first)
			fputc(',', f);
		escape_json(f, p->key[i], strlen(p->key[i]));
		fputc(':', f);
		escape_json(f, p->value[i], strlen(p->value[i]));
		first = false;
	}
	fputc('}', f);
}
