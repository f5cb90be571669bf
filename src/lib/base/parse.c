/* parse.c: strict parsers for the numbers, sizes and modes found in arguments and the config file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Parses a plain decimal number: no sign, no blanks, no trailing garbage, no overflow. 0 or -EINVAL/-ERANGE. */
int parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

/* The first n bytes of s as parse_u64() reads a whole string. 0 or -EINVAL/-ERANGE. */
int parse_u64_prefix(const char *s, size_t n, uint64_t *ret)
{
	char digits[32];

	if (n >= sizeof(digits))
		return -ERANGE;
	memcpy(digits, s, n);
	digits[n] = '\0';
	return parse_u64(digits, ret);
}

/* The power of two a unit suffix stands for: 0 for none, 10 for K ... 40 for T, or -EINVAL. */
static int suffix_shift(const char *suffix)
{
	static const char units[] = "KMGT";
	const char *u;

	if (*suffix == '\0')
		return 0;
	u = strchr(units, suffix[0]);
	if (!u || suffix[0] == '\0')
		return -EINVAL;
	/* Accept "16M", "16MB" and "16MiB" alike; nothing else after the unit. */
	if (suffix[1] == '\0' || strcmp(suffix + 1, "B") == 0 || strcmp(suffix + 1, "iB") == 0)
		return 10 * (int)(u - units + 1);
	return -EINVAL;
}

/* Parses bytes with an optional binary unit (K, M, G, T: powers of 1024). 0 or -EINVAL/-ERANGE. */
int parse_bytes(const char *s, uint64_t *ret)
{
	size_t n = s ? strspn(s, "0123456789") : 0;
	uint64_t v;
	int shift, r;

	if (!s || n == 0 || n >= 32)
		return n == 0 ? -EINVAL : -ERANGE;
	shift = suffix_shift(s + n);
	if (shift < 0)
		return -EINVAL;
	r = parse_u64_prefix(s, n, &v);
	if (r < 0)
		return r;
	if (shift > 0 && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*ret = v << shift;
	return 0;
}

/* Microseconds in a unit of time, as systemd's time spans name them; 0 for an unknown unit. */
static uint64_t unit_usec(const char *u)
{
	static const struct { const char *name; uint64_t usec; } units[] = {
		{ "us", 1 }, { "usec", 1 }, { "ms", 1000 }, { "msec", 1000 }, { "s", 1000000 }, { "sec", 1000000 },
		{ "m", 60000000 }, { "min", 60000000 }, { "h", 3600000000ULL }, { "hour", 3600000000ULL },
		{ "d", 86400000000ULL }, { "day", 86400000000ULL }, { "days", 86400000000ULL },
		{ "w", 604800000000ULL }, { "week", 604800000000ULL }, { "weeks", 604800000000ULL },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(u, units[i].name) == 0)
			return units[i].usec;
	return 0;
}

/*
 * Parses a duration: a plain number and a unit ("30min", "12h", "500ms", "7d"), or a bare number, which is in
 * bare_usec units, into microseconds; no sign, no blanks, no overflow. The one parser of durations: arguments and the
 * config file alike. 0 or -EINVAL/-ERANGE.
 */
int parse_duration(const char *s, uint64_t bare_usec, uint64_t *usec)
{
	size_t n = s ? strspn(s, "0123456789") : 0;
	uint64_t v, unit;
	int r;

	if (!s || n == 0)
		return -EINVAL;
	unit = s[n] ? unit_usec(s + n) : bare_usec;
	if (unit == 0)
		return -EINVAL;
	r = parse_u64_prefix(s, n, &v);
	if (r < 0)
		return r;
	if (v > UINT64_MAX / unit)
		return -ERANGE;
	*usec = v * unit;
	return 0;
}

/*
 * Parses a signature's form: exactly 16 lowercase hex digits, not all zero (strtoull would take blanks, a sign and
 * "0x" before them). 0 or -EINVAL.
 */
int parse_hex64(const char *s, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; s && i < 16; i++) {
		const char c = s[i];

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return -EINVAL;
	}
	if (!s || s[16] != '\0' || v == 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* Parses "SECONDS[.FRACTION]" (a time since the epoch, as "@..." gives it) into microseconds. 0 or -EINVAL/-ERANGE. */
int parse_epoch_usec(const char *s, uint64_t *usec)
{
	size_t n = s ? strspn(s, "0123456789") : 0, f = 0;
	uint64_t sec, frac = 0;
	int r;

	if (!s || n == 0)
		return -EINVAL;
	if (s[n] == '.') {
		f = strspn(s + n + 1, "0123456789");
		if (s[n + 1 + f] != '\0')
			return -EINVAL;
	} else if (s[n] != '\0') {
		return -EINVAL;
	}
	r = parse_u64_prefix(s, n, &sec);
	if (r < 0)
		return r;
	/* Past microseconds, the digits say nothing this clock keeps. */
	for (size_t i = 0; i < 6; i++)
		frac = frac * 10 + (i < f ? (uint64_t)(s[n + 1 + i] - '0') : 0);
	if (sec > (UINT64_MAX - frac) / 1000000)
		return -ERANGE;
	*usec = sec * 1000000 + frac;
	return 0;
}

/* Parses "N%" (0..100) or bytes as parse_bytes does. The result carries no cap. */
int parse_size_spec(const char *s, struct size_spec *ret)
{
	size_t len = s ? strlen(s) : 0;
	struct size_spec spec = { .cap = UINT64_MAX };
	int r;

	if (len > 1 && s[len - 1] == '%') {
		if (len - 1 >= 8)
			return -ERANGE;
		r = parse_u64_prefix(s, len - 1, &spec.value);
		if (r < 0)
			return r;
		if (spec.value > 100)
			return -ERANGE;
		spec.percent = true;
	} else {
		r = parse_bytes(s, &spec.value);
		if (r < 0)
			return r;
	}
	*ret = spec;
	return 0;
}

/* Parses an octal file mode. Only read and write bits are meaningful for a core; anything else is refused. */
int parse_mode(const char *s, mode_t *ret)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '7')
		return -EINVAL;
	v = strtoul(s, &end, 8);
	if (*end != '\0')
		return -EINVAL;
	if (v & ~0666UL)
		return -ERANGE;
	if (!(v & 0400))
		return -ERANGE;
	*ret = (mode_t)v;
	return 0;
}

/* Formats a size spec the way the config file writes it. */
int format_size_spec(char *buf, size_t len, const struct size_spec *s)
{
	if (s->percent)
		return snprintf(buf, len, "%llu%%", (unsigned long long)s->value);
	return snprintf(buf, len, "%llu", (unsigned long long)s->value);
}
