/*
 * name.c: the stored file's name, core.<comm>.<pid>.<UTC time>[.N]. comm is chosen by the crashing process, so it
 * is cut down to a safe character set: the name can never leave the directory, hide itself or hold a control byte.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "name.h"

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

/* Formats the name; attempt > 0 adds a ".N" suffix for the rare clash. 0 or -ENAMETOOLONG. */
int name_format(char *buf, size_t len, const char *comm, pid_t pid, uint64_t time, unsigned attempt)
{
	char safe[NAME_COMM_MAX + 1], stamp[32];
	time_t t = (time_t)time;
	struct tm tm;
	int n;

	name_sanitize(comm, safe, sizeof(safe));
	if (!gmtime_r(&t, &tm) || strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0)
		(void) snprintf(stamp, sizeof(stamp), "%llu", (unsigned long long)time);
	if (attempt > 0)
		n = snprintf(buf, len, "core.%s.%d.%s.%u", safe, (int)pid, stamp, attempt);
	else
		n = snprintf(buf, len, "core.%s.%d.%s", safe, (int)pid, stamp);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
