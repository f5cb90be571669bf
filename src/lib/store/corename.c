/*
 * corename.c: the stored file's name, core.<comm>.<pid>.<UTC time>[.N][.zst][.age], written and read back. comm is chosen
 * by the crashing process, so it is cut down to a safe character set: the name can never leave the directory, hide
 * itself or hold a control byte. name_parse() accepts exactly what name_format() writes, so that vacuum never
 * touches anything else.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "corename.h"

#define STAMP_FORMAT "%Y%m%dT%H%M%SZ"
#define STAMP_LEN 16   /* YYYYmmddTHHMMSSZ */

static int safe_char(unsigned char ch)
{
	return ch != '\0' && strchr(NAME_SAFE_CHARS, ch) != NULL;
}

/* Copies in to out (len > 1), with every byte outside [A-Za-z0-9._+-] as '_' and at most NAME_COMM_MAX bytes. */
void name_sanitize(const char *in, char *out, size_t len)
{
	size_t n = 0;

	if (len > NAME_COMM_MAX + 1)
		len = NAME_COMM_MAX + 1;
	for (const unsigned char *p = (const unsigned char *)in; *p && n + 1 < len; p++)
		out[n++] = safe_char(*p) ? (char)*p : '_';
	out[n] = '\0';
	/* A leading dot would hide the file, and "." or ".." could name a directory. */
	if (out[0] == '.')
		out[0] = '_';
	if (n == 0)
		(void) snprintf(out, len, "unknown");
}

/*
 * Formats the name; attempt > 0 adds a ".N" suffix for the rare clash, compressed the ".zst" that tells coredumpctl
 * how to read the file, encrypted ".age" after it. 0 or -ENAMETOOLONG.
 */
int name_format(char *buf, size_t len, const char *comm, pid_t pid, uint64_t time, unsigned attempt,
		bool compressed, bool encrypted)
{
	const char *suffix = compressed ? encrypted ? NAME_ZSTD NAME_AGE : NAME_ZSTD : encrypted ? NAME_AGE : "";
	char safe[NAME_COMM_MAX + 1], stamp[32];
	time_t t = (time_t)time;
	struct tm tm;
	int n;

	name_sanitize(comm, safe, sizeof(safe));
	if (!gmtime_r(&t, &tm) || strftime(stamp, sizeof(stamp), STAMP_FORMAT, &tm) == 0)
		(void) snprintf(stamp, sizeof(stamp), "%llu", (unsigned long long)time);
	if (attempt > 0)
		n = snprintf(buf, len, "core.%s.%d.%s.%u%s", safe, (int)pid, stamp, attempt, suffix);
	else
		n = snprintf(buf, len, "core.%s.%d.%s%s", safe, (int)pid, stamp, suffix);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The n bytes at s as a number of at most 10 digits (a pid, a clash suffix), into *v. */
static bool number(const char *s, size_t n, uint64_t *v)
{
	return n > 0 && n <= 10 && parse_u64_prefix(s, n, v) == 0;
}

/* The UTC stamp of STAMP_LEN bytes at s, as seconds since the epoch; only a stamp strftime() would write. */
static bool stamp_parse(const char *s, uint64_t *time)
{
	char buf[STAMP_LEN + 1], again[32];
	struct tm tm = { 0 };
	const char *end;
	time_t t;

	memcpy(buf, s, STAMP_LEN);
	buf[STAMP_LEN] = '\0';
	end = strptime(buf, STAMP_FORMAT, &tm);
	if (!end || *end)
		return false;
	t = timegm(&tm);
	if (t < 0 || !gmtime_r(&t, &tm) || strftime(again, sizeof(again), STAMP_FORMAT, &tm) == 0 ||
	    strcmp(again, buf) != 0)
		return false;
	*time = (uint64_t)t;
	return true;
}

/* The last dot-separated field of [s, s + *len): its start, with *len cut to what comes before its dot. */
static const char *last_field(const char *s, size_t *len)
{
	const char *dot = memrchr(s, '.', *len);

	if (!dot)
		return NULL;
	*len = (size_t)(dot - s);
	return dot + 1;
}

/*
 * Reads a name that name_format() wrote back into its parts (comm as sanitized). 0, or -EINVAL for any other
 * name: another comm alphabet, a leading dot, a comm longer than NAME_COMM_MAX, a bad pid, stamp or suffix.
 */
int name_parse(const char *name, struct name_parts *p)
{
	size_t len = strlen(name), n;
	const char *field, *end = name + len;
	uint64_t v;

	*p = (struct name_parts) { 0 };
	if (strncmp(name, "core.", 5) != 0)
		return -EINVAL;
	name += 5;
	len -= 5;
	if (len > strlen(NAME_AGE) && strcmp(end - strlen(NAME_AGE), NAME_AGE) == 0) {
		p->encrypted = true;
		len -= strlen(NAME_AGE);
		end -= strlen(NAME_AGE);
	}
	if (len > strlen(NAME_ZSTD) && strncmp(end - strlen(NAME_ZSTD), NAME_ZSTD, strlen(NAME_ZSTD)) == 0) {
		p->compressed = true;
		len -= strlen(NAME_ZSTD);
		end -= strlen(NAME_ZSTD);
	}
	field = last_field(name, &len);
	/* A last field of digits only is the ".N" of a clash; the stamp holds a 'T'. */
	if (field && number(field, (size_t)(end - field), &v)) {
		if (v == 0)
			return -EINVAL;
		p->attempt = (unsigned)v;
		end = field - 1;
		field = last_field(name, &len);
	}
	if (!field || end - field != STAMP_LEN || !stamp_parse(field, &p->time))
		return -EINVAL;
	end = field - 1;
	field = last_field(name, &len);
	if (!field || !number(field, (size_t)(end - field), &v) || v > INT32_MAX)
		return -EINVAL;
	p->pid = (pid_t)v;
	n = len;
	if (n == 0 || n > NAME_COMM_MAX || name[0] == '.' || strspn(name, NAME_SAFE_CHARS) < n)
		return -EINVAL;
	memcpy(p->comm, name, n);
	p->comm[n] = '\0';
	return 0;
}
