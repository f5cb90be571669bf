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

/* Whether s[0..n) is a container id: 12 to 64 lowercase hex digits (so, as a file name, it names no other path). */
bool cgroup_hex_id(const char *s, size_t n)
{
	if (n < 12 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A Kubernetes pod's UID in s[0..n): 32 to 36 hex digits and dashes, or underscores as systemd's slices write them. */
static bool pod_uid(const char *s, size_t n, char *out, size_t len)
{
	if (n < 32 || n > 36 || n >= len)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || s[i] == '-' || s[i] == '_'))
			return false;
		out[i] = s[i] == '_' ? '-' : s[i];
	}
	out[n] = '\0';
	return true;
}

/*
 * A containerd namespace or container id, as containerd's identifiers package allows them: letters, digits, . _ -,
 * a letter or digit first (so never "." or ".."), at most 76 bytes; n < max too.
 */
static bool identifier(const char *s, size_t n, size_t max)
{
	if (n == 0 || n > 76 || n >= max || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
					       (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	return n > p && memcmp(s, prefix, p) == 0;
}

/* PREFIX<hex id>SUFFIX: the id into c with its runtime. */
static bool runtime_name(const char *s, size_t n, const char *prefix, const char *suffix, const char *runtime,
			 struct container *c)
{
	size_t p = strlen(prefix), k = strlen(suffix);

	if (n <= p + k || memcmp(s, prefix, p) != 0 || (k && !ends_with(s, n, suffix)) || !cgroup_hex_id(s + p, n - p - k))
		return false;
	(void) snprintf(c->runtime, sizeof(c->runtime), "%s", runtime);
	(void) snprintf(c->id, sizeof(c->id), "%.*s", (int)(n - p - k), s + p);
	return true;
}

/* The place on the path so far: what the components before this one were. */
struct walk {
	const char *parent;
	size_t pn;
	unsigned depth;       /* components before this one */
	const char *first;    /* the first component, and its length */
	size_t fn;
	bool kubepods;        /* under a kubepods cgroup (cgroupfs: /kubepods/...; systemd: kubepods.slice) */
};

static bool is(const char *s, size_t n, const char *name)
{
	return n == strlen(name) && memcmp(s, name, n) == 0;
}

/*
 * One component s[0..n) of the path that names a pod (systemd's slices, podman's and the kubelet's cgroupfs
 * directories): its id or UID into c. Whether it did.
 */
static bool pod_in(const struct walk *w, const char *s, size_t n, struct container *c)
{
	if (has_prefix(s, n, "machine-libpod_pod_") && ends_with(s, n, ".slice") && cgroup_hex_id(s + 19, n - 19 - 6)) {
		(void) snprintf(c->pod, sizeof(c->pod), "%.*s", (int)(n - 19 - 6), s + 19);
		return true;
	}
	if (w->pn && is(w->parent, w->pn, "libpod_parent") && cgroup_hex_id(s, n)) {
		(void) snprintf(c->pod, sizeof(c->pod), "%.*s", (int)n, s);
		return true;
	}
	if (!w->kubepods)
		return false;
	/* kubepods-QOS-pod<UID>.slice (underscores for dashes), or cgroupfs's pod<UID>. */
	if (has_prefix(s, n, "kubepods") && ends_with(s, n, ".slice") && n > 6 + 3 + 32) {
		const char *pod = NULL;

		for (const char *q = s; q + 4 <= s + n - 6; q++)
			if (memcmp(q, "-pod", 4) == 0)
				pod = q + 4;
		if (pod && pod_uid(pod, (size_t)(s + n - 6 - pod), c->pod, sizeof(c->pod)))
			c->kube = true;
		return true;
	}
	if (!has_prefix(s, n, "pod") || !pod_uid(s + 3, n - 3, c->pod, sizeof(c->pod)))
		return false;
	c->kube = true;
	return true;
}

/*
 * One component s[0..n) of the path that names a machine or a container, by systemd's cgroup driver (a scope) or
 * cgroupfs (a directory): into c. Whether it did.
 */
static bool container_in(const struct walk *w, const char *s, size_t n, struct container *c)
{
	if (n > 14 && memcmp(s, "machine-", 8) == 0 && ends_with(s, n, ".scope")) {
		unescape(c->machine, sizeof(c->machine), s + 8, n - 8 - 6);
		return true;
	}
	if (runtime_name(s, n, "docker-", ".scope", "docker", c) || runtime_name(s, n, "libpod-", ".scope", "podman", c) ||
	    runtime_name(s, n, "cri-containerd-", ".scope", "containerd", c) ||
	    runtime_name(s, n, "crio-", ".scope", "cri-o", c))
		return true;
	if ((w->pn && is(w->parent, w->pn, "docker") && runtime_name(s, n, "", "", "docker", c)) ||
	    (is(w->first, w->fn, "libpod_parent") && runtime_name(s, n, "libpod-", "", "podman", c)))
		return true;
	if (w->kubepods && c->kube && (runtime_name(s, n, "crio-", "", "cri-o", c) || runtime_name(s, n, "", "", "", c)))
		return true;
	/*
	 * Plain containerd (ctr): /NAMESPACE/ID, any identifier; whether it is one, the runtime's files decide. Not
	 * beneath a systemd slice (/user.slice/user-1000.slice): the walk goes on to what lies in it.
	 */
	if (w->depth == 1 && !w->kubepods && !ends_with(w->first, w->fn, ".slice") &&
	    identifier(w->first, w->fn, sizeof(c->ns)) &&
	    identifier(s, n, sizeof(c->id))) {
		(void) snprintf(c->ns, sizeof(c->ns), "%.*s", (int)w->fn, w->first);
		(void) snprintf(c->id, sizeof(c->id), "%.*s", (int)n, s);
		return true;
	}
	return false;
}

/* Reads the container path names into c: the first machine or container from the root, and the pod above it. */
void cgroup_container(const char *path, struct container *c)
{
	struct walk w = { .parent = "", .first = "" };
	const char *s;
	size_t n;

	memset(c, 0, sizeof(*c));
	while ((s = component(&path, &n))) {
		if (w.depth == 0 && (is(s, n, "kubepods") || is(s, n, "kubepods.slice")))
			w.kubepods = true;
		/*
		 * A user's slice, above the container: the user may name cgroups there as they like (their manager's
		 * subtree is delegated to them), a scope named after root's container among them. What lies beneath is
		 * theirs, and root's runtimes' files are not its word (runtime_read()).
		 */
		(void) (uid_in(s, n, "user-", ".slice", &c->owner) || uid_in(s, n, "user@", ".service", &c->owner));
		/* A machine or a container stops the walk: all beneath is its own, a delegated cgroup it may name. */
		if (!pod_in(&w, s, n, c) && container_in(&w, s, n, c))
			return;
		if (w.depth++ == 0)
			w.first = s, w.fn = n;
		w.parent = s;
		w.pn = n;
	}
	/* A pod without a container of its own on the path (its infra process, a cgroup of its own): no container. */
	c->id[0] = c->runtime[0] = '\0';
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
