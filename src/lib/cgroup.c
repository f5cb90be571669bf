/*
 * cgroup.c: the systemd units a cgroup path names, as systemd-coredump records them: the unit (a .service or
 * .scope), the user unit inside user@UID.service, the slice, and the owner of a user slice. A pure parse of
 * untrusted text: a path that names nothing yields empty names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && memcmp(s + n - k, suffix, k) == 0;
}

static void copy(char *dst, const char *src, size_t n)
{
	if (n >= UNIT_NAME_MAX)
		n = UNIT_NAME_MAX - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A number between prefix and suffix in the component s[0..n), as in user-1000.slice or user@1000.service. */
static bool uid_in(const char *s, size_t n, const char *prefix, const char *suffix, uid_t *uid)
{
	size_t p = strlen(prefix), k = strlen(suffix);
	char num[16];
	char *end;
	unsigned long v;

	if (n <= p + k || n - p - k >= sizeof(num) || memcmp(s, prefix, p) != 0 || !ends_with(s, n, suffix))
		return false;
	memcpy(num, s + p, n - p - k);
	num[n - p - k] = '\0';
	v = strtoul(num, &end, 10);
	if (*end != '\0' || num[0] < '0' || num[0] > '9' || v >= (uid_t)-1)
		return false;
	*uid = (uid_t)v;
	return true;
}

/* Reads the components of path (a cgroup v2 path such as /system.slice/foo.service) into u. */
void cgroup_units(const char *path, struct units *u)
{
	bool in_user_manager = false;

	memset(u, 0, sizeof(*u));
	u->owner_uid = (uid_t)-1;
	for (const char *s = path; s && *s;) {
		size_t n;

		s += strspn(s, "/");
		n = strcspn(s, "/\n");
		if (n == 0)
			break;
		if (ends_with(s, n, ".slice") && !in_user_manager) {
			copy(u->slice, s, n);
			(void) uid_in(s, n, "user-", ".slice", &u->owner_uid);
		} else if (ends_with(s, n, ".service") || ends_with(s, n, ".scope")) {
			if (in_user_manager) {
				copy(u->user_unit, s, n);
			} else {
				copy(u->unit, s, n);
				in_user_manager = uid_in(s, n, "user@", ".service", &u->owner_uid);
			}
		}
		s += n;
		if (*s == '\n')
			break;
	}
}

static const char *line_with(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *line = text; line && *line;) {
		if (strncmp(line, prefix, n) == 0)
			return line + n;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

/*
 * The cgroup path systemd tracks units by, in /proc/PID/cgroup text: the unified hierarchy's ("0::/path"), or on a
 * hybrid host where that is only "/", the name=systemd one. Points into the text, up to a newline; NULL if none.
 */
const char *cgroup_path(const char *proc_cgroup)
{
	const char *unified = line_with(proc_cgroup, "0::"), *named = strstr(proc_cgroup, ":name=systemd:");

	if (unified && (unified[0] != '/' || (unified[1] != '\n' && unified[1] != '\0')))
		return unified;
	return named ? named + strlen(":name=systemd:") : unified;
}
