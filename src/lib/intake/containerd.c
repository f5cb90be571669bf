/*
 * containerd.c: where the containerds of this machine keep their state (the tasks' bundles) and their root (the
 * metadata database). A system containerd keeps /run/containerd and /var/lib/containerd; k3s and rke2 run their own
 * (k3s: --state /run/k3s/containerd --root /var/lib/rancher/k3s/agent/containerd), and a config file may name
 * others (its top-level state = and root =). So the running containerds are read from /proc: root's processes only
 * (a user's process named containerd says nothing anyone trusts), their command line (--state, --root, --config or
 * -c), then that config's top-level keys, then containerd's defaults. Only absolute paths without "..", so that a
 * path read here names no other place than it says.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "containerd.h"

#define CMDLINE_MAX 8192
#define CONFIG_MAX (256u << 10)
#define PROCS_MAX 4096               /* /proc entries looked at: a bound on the walk, not on the machine */

/* Whether p is an absolute path of a directory name without "." or ".." components, that fits a dirs field. */
static bool plain_path(const char *p)
{
	size_t n = strlen(p);

	if (p[0] != '/' || n >= CONTAINERD_PATH_MAX || strstr(p, "/../") || strstr(p, "/./") || strstr(p, "//"))
		return false;
	if ((n >= 3 && strcmp(p + n - 3, "/..") == 0) || (n >= 2 && strcmp(p + n - 2, "/.") == 0))
		return false;
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* The small file root+path (at most max - 1 bytes) into buf, NUL-terminated (io_open_host): its length, or -1. */
static ssize_t slurp(const char *root, const char *path, char *buf, size_t max)
{
	ssize_t n;
	_cleanup_close_ int fd = io_open_host(root, path);

	if (fd < 0)
		return -1;
	n = io_read_full(fd, buf, max - 1, NULL);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * A top-level key of a containerd config (TOML: before any [table]), a basic string without escapes, into out. 0, or
 * -ENOENT where it is not set so.
 */
static int toml_top(const char *text, const char *key, char *out, size_t len)
{
	size_t k = strlen(key);

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *p = line, *q;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[')
			break;
		if (strncmp(p, key, k) != 0)
			continue;
		for (p += k; *p == ' ' || *p == '\t'; p++)
			;
		if (*p++ != '=')
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p++ != '"' || !(q = strpbrk(p, "\"\\\n")) || *q != '"' || (size_t)(q - p) >= len)
			return -ENOENT;
		memcpy(out, p, (size_t)(q - p));
		out[q - p] = '\0';
		return 0;
	}
	return -ENOENT;
}

/* Whether the process of /proc/NAME (under root) is root's containerd: its comm, its real uid 0. */
static bool is_containerd(const char *root, const char *name)
{
	char path[300], text[2048], *uid;

	(void) snprintf(path, sizeof(path), "/proc/%s/comm", name);
	if (slurp(root, path, text, sizeof(text)) < 0 || strcmp(text, "containerd\n") != 0)
		return false;
	(void) snprintf(path, sizeof(path), "/proc/%s/status", name);
	if (slurp(root, path, text, sizeof(text)) < 0 || !(uid = strstr(text, "\nUid:")))
		return false;
	return strncmp(uid + 5, "\t0\t", 3) == 0;
}

/* The state and root of the containerd of /proc/NAME from its command line, its config, or the defaults. */
static int dirs_of(const char *root, const char *name, struct containerd_dirs *d)
{
	char path[300], config[CONTAINERD_PATH_MAX] = "/etc/containerd/config.toml", *text;
	char cmd[CMDLINE_MAX];
	ssize_t n;
	int r = 0;

	d->state[0] = d->root[0] = '\0';
	(void) snprintf(path, sizeof(path), "/proc/%s/cmdline", name);
	n = slurp(root, path, cmd, sizeof(cmd));
	if (n < 0)
		return -ENOENT;
	/* The arguments, each NUL-ended: "--state DIR" and "--state=DIR" as urfave/cli takes them. */
	for (const char *a = cmd, *end = cmd + n; a < end; a += strlen(a) + 1) {
		const char *next = a + strlen(a) + 1, *v = NULL;
		char *to = NULL;

		if (strcmp(a, "--state") == 0 || strcmp(a, "--root") == 0 || strcmp(a, "--config") == 0 ||
		    strcmp(a, "-c") == 0)
			v = next < end ? next : NULL;
		else if (strncmp(a, "--state=", 8) == 0 || strncmp(a, "--root=", 7) == 0 || strncmp(a, "--config=", 9) == 0)
			v = strchr(a, '=') + 1;
		if (!v)
			continue;
		to = a[2] == 's' ? d->state : a[2] == 'r' ? d->root : config;
		(void) snprintf(to, CONTAINERD_PATH_MAX, "%s", v);
	}
	/* What the command line did not say, from the config it names (or containerd's own). */
	if ((!d->state[0] || !d->root[0]) && plain_path(config) && (text = malloc(CONFIG_MAX))) {
		if (slurp(root, config, text, CONFIG_MAX) >= 0) {
			if (!d->state[0])
				(void) toml_top(text, "state", d->state, sizeof(d->state));
			if (!d->root[0])
				(void) toml_top(text, "root", d->root, sizeof(d->root));
		}
		free(text);
	}
	if (!d->state[0])
		(void) snprintf(d->state, sizeof(d->state), "/run/containerd");
	if (!d->root[0])
		(void) snprintf(d->root, sizeof(d->root), "/var/lib/containerd");
	if (!plain_path(d->state) || !plain_path(d->root))
		r = -EINVAL;
	return r;
}

/*
 * The containerds running here (root's), each with its state and root directories, into v (at most max), those of
 * a system containerd's defaults left out (the caller reads there first). How many.
 */
size_t containerd_find(const char *root, struct containerd_dirs *v, size_t max)
{
	char proc[PATH_MAX];
	struct dirent *e;
	size_t n = 0, seen = 0;
	_cleanup_closedir_ DIR *d = NULL;

	if ((size_t)snprintf(proc, sizeof(proc), "%s/proc", root) >= sizeof(proc) || !(d = opendir(proc)))
		return 0;
	while (n < max && seen++ < PROCS_MAX && (e = readdir(d))) {
		bool dup = false;

		if (!isdigit((unsigned char)e->d_name[0]) || !is_containerd(root, e->d_name) ||
		    dirs_of(root, e->d_name, &v[n]) < 0)
			continue;
		if (strcmp(v[n].state, "/run/containerd") == 0 && strcmp(v[n].root, "/var/lib/containerd") == 0)
			continue;
		for (size_t i = 0; i < n; i++)
			dup = dup || (strcmp(v[i].state, v[n].state) == 0 && strcmp(v[i].root, v[n].root) == 0);
		n += !dup;
	}
	return n;
}
