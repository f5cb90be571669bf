/*
 * cgroup.c: the systemd units a cgroup path names, as systemd-coredump records them: the unit (a .service or
 * .scope), the user unit inside user@UID.service, the slice, and the owner of a user slice; and the container it
 * names, when its manager put it in a cgroup of its own. A pure parse of untrusted text: a path that names nothing
 * yields empty names.
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

/* The next component of a cgroup path at *p, its length in *n; NULL at the path's end (a newline ends it too). */
static const char *component(const char **p, size_t *n)
{
	const char *s;

	if (!*p)
		return NULL;
	*p += strspn(*p, "/");
	*n = strcspn(*p, "/\n");
	if (*n == 0)
		return NULL;
	s = *p;
	*p += *n;
	return s;
}

/* Reads the components of path (a cgroup v2 path such as /system.slice/foo.service) into u. */
void cgroup_units(const char *path, struct units *u)
{
	bool in_user_manager = false;
	const char *s;
	size_t n;

	memset(u, 0, sizeof(*u));
	u->owner_uid = (uid_t)-1;
	while ((s = component(&path, &n))) {
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
	}
}

/* Unit names escape bytes as \xNN (a '-' in a machine's name is \x2d): the name they stand for. */
static void unescape(char *dst, size_t len, const char *src, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < len; i++) {
		unsigned v;

		if (src[i] == '\\' && i + 3 < n && src[i + 1] == 'x' && sscanf(src + i + 2, "%2x", &v) == 1 && v) {
			dst[o++] = (char)v;
			i += 3;
		} else {
			dst[o++] = src[i];
		}
	}
	dst[o] = '\0';
}

/* Whether s[0..n) is a container id: 12 to 64 lowercase hex digits. */
static bool hex_id(const char *s, size_t n)
{
	if (n < 12 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* The runtimes' cgroup names: PREFIXID.scope (systemd's cgroup driver) or a directory PARENT/ID (cgroupfs). */
static const struct {
	const char *prefix, *parent, *runtime;
} runtimes[] = {
	{ "docker-", "docker", "docker" },
	{ "libpod-", "libpod_parent", "podman" },
	{ "cri-containerd-", NULL, "containerd" },
	{ "crio-", NULL, "cri-o" },
};

/* One component s[0..n) after parent (the one before it): a machine or a runtime's container, into c. */
static void container_in(const char *parent, size_t pn, const char *s, size_t n, struct container *c)
{
	if (n > 14 && memcmp(s, "machine-", 8) == 0 && ends_with(s, n, ".scope")) {
		unescape(c->machine, sizeof(c->machine), s + 8, n - 8 - 6);
		return;
	}
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		size_t p = strlen(runtimes[i].prefix), q = runtimes[i].parent ? strlen(runtimes[i].parent) : 0;
		bool scope = n > p + 6 && memcmp(s, runtimes[i].prefix, p) == 0 && ends_with(s, n, ".scope") &&
			     hex_id(s + p, n - p - 6);
		bool dir = q && pn == q && memcmp(parent, runtimes[i].parent, q) == 0 && hex_id(s, n);

		if (scope || dir) {
			(void) snprintf(c->runtime, sizeof(c->runtime), "%s", runtimes[i].runtime);
			(void) snprintf(c->id, sizeof(c->id), "%.*s", (int)(scope ? n - p - 6 : n), scope ? s + p : s);
		}
	}
}

/* Reads the container path names into c: the last machine scope and runtime container on it. */
void cgroup_container(const char *path, struct container *c)
{
	const char *parent = "", *s;
	size_t pn = 0, n;

	memset(c, 0, sizeof(*c));
	while ((s = component(&path, &n))) {
		container_in(parent, pn, s, n, c);
		parent = s;
		pn = n;
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
