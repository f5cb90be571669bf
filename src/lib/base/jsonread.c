/*
 * jsonread.c: reads the few values coresink needs from the state files of container runtimes (an OCI bundle's
 * config.json, Docker's config.v2.json, containers/storage's containers.json). Those files are root's, but what is
 * in them is not: a pod's author chooses its names, labels and annotations. So every value is checked as RFC 8259
 * says before it is used, nesting is bounded, nothing is allocated, and a string comes out only whole, valid and
 * free of control characters: a name that does not fit is no name, never a cut one.
 * No library of the project's parses JSON, and one of its own for four small files would put a dependency in the
 * handler that every host loads at every crash; this reads exactly what RFC 8259 allows, and a fuzzer runs it.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "jsonread.h"

#define DEPTH_MAX 64

static const char *space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int hex4(const char *p, const char *end, unsigned *v)
{
	*v = 0;
	if (end - p < 4)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
			     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;

		if (d > 15)
			return -EINVAL;
		*v = *v << 4 | d;
	}
	return 0;
}

/* Appends code point cp as UTF-8 to out[*o], if it fits in len (with a terminator); false if not. */
static bool put_utf8(char *out, size_t len, size_t *o, unsigned cp)
{
	unsigned char b[4];
	size_t k;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp, k = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 0x3f)), k = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12), b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f)), k = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18), b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f)), b[3] = (unsigned char)(0x80 | (cp & 0x3f)), k = 4;
	}
	if (!out)
		return true;
	if (*o + k >= len)
		return false;
	memcpy(out + *o, b, k);
	*o += k;
	return true;
}

/* The length of the valid UTF-8 sequence at p (RFC 3629: no overlong forms, no surrogates), 0 if invalid; its *cp. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end, unsigned *cp_out)
{
	size_t k = p[0] < 0xc2 ? 0 : p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : p[0] <= 0xf4 ? 4 : 0;
	unsigned cp;

	if (k == 0 || (size_t)(end - p) < k)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	cp = k == 2 ? (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu) :
	     k == 3 ? (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu) :
		      (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 | (p[3] & 0x3fu);
	if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	*cp_out = cp;
	return k;
}

/* A control character: C0, DEL, C1 (U+0080 to U+009F, which terminals obey as escapes). No name holds one. */
static bool control(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

/*
 * The string at p (its opening quote): the position after its closing quote, or NULL if it is not valid JSON.
 * strict refuses (NULL) one that holds a control character too, escaped or not; with out, it is decoded into
 * out[len], and refused when it does not fit.
 */
static const char *string_at(const char *p, const char *end, bool strict, char *out, size_t len)
{
	size_t o = 0;

	if (p >= end || *p++ != '"')
		return NULL;
	while (p < end && *p != '"') {
		unsigned char c = (unsigned char)*p;
		unsigned cp = c, lo;
		size_t k = 1;

		if (c < 0x20)
			return NULL;
		if (c >= 0x80 && (k = utf8_len((const unsigned char *)p, (const unsigned char *)end, &cp)) == 0)
			return NULL;
		if (c != '\\') {
			if ((strict && control(cp)) || (out && o + k >= len))
				return NULL;
			if (out)
				memcpy(out + o, p, k);
			o += k, p += k;
			continue;
		}
		if (++p >= end)
			return NULL;
		switch (*p++) {
		case '"': cp = '"'; break;
		case '\\': cp = '\\'; break;
		case '/': cp = '/'; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (hex4(p, end, &cp) < 0)
				return NULL;
			p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &lo) < 0 ||
				    lo < 0xdc00 || lo > 0xdfff)
					return NULL;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				return NULL;
			}
			break;
		default:
			return NULL;
		}
		if ((strict && control(cp)) || !put_utf8(out, len, &o, cp))
			return NULL;
	}
	if (p >= end)
		return NULL;
	if (out)
		out[o] = '\0';
	return p + 1;
}

static const char *value_at(const char *p, const char *end, unsigned depth);

/* The members of the object or the elements of the array at p ('{' or '['): the position after it, or NULL. */
static const char *container_at(const char *p, const char *end, unsigned depth)
{
	char close = *p == '{' ? '}' : ']';

	if (depth >= DEPTH_MAX)
		return NULL;
	p = space(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			p = string_at(p, end, false, NULL, 0);
			p = p ? space(p, end) : NULL;
			if (!p || p >= end || *p++ != ':')
				return NULL;
		}
		p = value_at(p, end, depth + 1);
		p = p ? space(p, end) : NULL;
		if (!p || p >= end)
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
		p = space(p, end);
	}
}

static const char *number_at(const char *p, const char *end)
{
	const char *s;

	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (p < end && *p >= '1' && *p <= '9')
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (p < end && *p == '.') {
		s = ++p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == s)
			return NULL;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		s = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == s)
			return NULL;
	}
	return p;
}

static const char *word_at(const char *p, const char *end, const char *w)
{
	size_t k = strlen(w);

	return (size_t)(end - p) >= k && memcmp(p, w, k) == 0 ? p + k : NULL;
}

/* The value at p (after any white space): the position after it, or NULL if it is not valid JSON. */
static const char *value_at(const char *p, const char *end, unsigned depth)
{
	p = space(p, end);
	if (p >= end)
		return NULL;
	switch (*p) {
	case '{':
	case '[': return container_at(p, end, depth);
	case '"': return string_at(p, end, false, NULL, 0);
	case 't': return word_at(p, end, "true");
	case 'f': return word_at(p, end, "false");
	case 'n': return word_at(p, end, "null");
	default: return number_at(p, end);
	}
}

/* The document text[0..n) as one value, checked whole: 0, or -EINVAL if it is not one valid JSON value. */
int json_whole(const char *text, size_t n, struct json_span *v)
{
	const char *end = text + n, *p = space(text, end), *q = value_at(p, end, 0);

	if (!q || space(q, end) != end)
		return -EINVAL;
	*v = (struct json_span) { p, (size_t)(q - p) };
	return 0;
}

/*
 * Where the next item of s, an array or an object (open is its '[' or '{'), begins after *pos (0 to begin): the
 * position, or NULL at its end (*r 0) or when s is not one (*r -EINVAL).
 */
static const char *next_item(struct json_span s, size_t pos, char open, int *r)
{
	const char *end = s.p + s.n, *p;

	*r = s.n < 2 || *s.p != open ? -EINVAL : 0;
	if (*r)
		return NULL;
	p = space(s.p + (pos ? pos : 1), end);
	if (p < end && *p == ',')
		p = space(p + 1, end);
	return p >= end || *p == (open == '[' ? ']' : '}') ? NULL : p;
}

/* The element after *pos of the array arr (*pos 0 to begin): 1 and *val, 0 at its end, -EINVAL if not an array. */
int json_element(struct json_span arr, size_t *pos, struct json_span *val)
{
	int r;
	const char *p = next_item(arr, *pos, '[', &r), *q;

	if (!p)
		return r;
	q = value_at(p, arr.p + arr.n, 1);
	if (!q)
		return -EINVAL;
	*val = (struct json_span) { p, (size_t)(q - p) };
	*pos = (size_t)(q - arr.p);
	return 1;
}

/*
 * The member after *pos of the object obj: 1 with its name's span and its value, 0 at its end, -EINVAL. With name,
 * the name is decoded into it in the same pass ("" when it is too long or holds a control character).
 */
static int member_at(struct json_span obj, size_t *pos, struct json_span *key, struct json_span *val, char *name,
		     size_t len)
{
	const char *end = obj.p + obj.n, *q = NULL;
	int r;
	const char *p = next_item(obj, *pos, '{', &r);

	if (!p)
		return r;
	if (name && !(q = string_at(p, end, true, name, len)))
		name[0] = '\0';
	if (!q && !(q = string_at(p, end, false, NULL, 0)))
		return -EINVAL;
	*key = (struct json_span) { p, (size_t)(q - p) };
	q = space(q, end);
	if (q >= end || *q++ != ':')
		return -EINVAL;
	p = space(q, end);
	q = value_at(p, end, 1);
	if (!q)
		return -EINVAL;
	*val = (struct json_span) { p, (size_t)(q - p) };
	*pos = (size_t)(q - obj.p);
	return 1;
}

/*
 * The member after *pos of the object obj (*pos 0 to begin): 1, with its name (a string's span: json_text() decodes
 * it) and its value; 0 at its end, -EINVAL if obj is not an object.
 */
int json_pair(struct json_span obj, size_t *pos, struct json_span *key, struct json_span *val)
{
	return member_at(obj, pos, key, val, NULL, 0);
}

/*
 * The value of member key in the object obj (a span json_whole or these gave, so already checked): 0, -ENOENT, or
 * -EINVAL when obj is not an object. The last member of that name wins, as most readers do; a name too long to be
 * one looked for, or holding a control character, is no match.
 */
int json_member(struct json_span obj, const char *key, struct json_span *val)
{
	struct json_span k, v;
	char name[256];
	size_t pos = 0;
	int r, found = -ENOENT;

	while ((r = member_at(obj, &pos, &k, &v, name, sizeof(name))) > 0)
		if (name[0] && strcmp(name, key) == 0) {
			*val = v;
			found = 0;
		}
	return r < 0 ? r : found;
}

/*
 * The string value v, decoded into out of len bytes: 0, or -EINVAL (not a string, or one holding a control
 * character), -ENAMETOOLONG (it does not fit: no part of it is given). out is "" on error.
 */
int json_text(struct json_span v, char *out, size_t len)
{
	const char *end = v.p + v.n;

	if (len)
		out[0] = '\0';
	if (v.n < 2 || *v.p != '"' || !string_at(v.p, end, true, NULL, 0))
		return -EINVAL;
	if (!string_at(v.p, end, true, out, len)) {
		if (len)
			out[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}
