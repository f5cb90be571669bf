/*
 * config-file.c: reading the configuration, systemd style: a [Coresink] section of Key=Value lines, then the drop-ins
 * of FILE.d/ in lexical order, each over what came before; [Rule] sections go to config-rule.c. A bad line is
 * reported and skipped, so the field keeps its default: a typo must never cost a core.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "config-internal.h"
#include "config.h"

static char *strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A section header: [Coresink], [Rule], or one that is not known (its keys are ignored). */
static int section_line(struct config *c, const char *file, unsigned line, const char *s, enum section *in,
			struct diag *d)
{
	if (strcmp(s, "[Coresink]") == 0) {
		*in = SECTION_MAIN;
		return 0;
	}
	if (strcmp(s, "[Rule]") == 0) {
		*in = config_rule_begin(c, file, line, d) == 0 ? SECTION_RULE : SECTION_NONE;
		return 0;
	}
	*in = SECTION_NONE;
	diag_add(d, "%s:%u: unknown section %.64s, its keys are ignored", file, line, s);
	return -EINVAL;
}

/* Applies one line. Returns 0, or -EINVAL when the line was reported in d and ignored. */
int config_parse_line(struct config *c, const char *file, unsigned line, char *text, enum section *in,
		      struct diag *d)
{
	char *s = strip(text), *eq, *val, *name;
	const struct key *k;

	if (*s == '\0' || *s == '#' || *s == ';')
		return 0;
	if (*s == '[')
		return section_line(c, file, line, s, in, d);
	if (*in == SECTION_NONE)
		return 0;
	eq = strchr(s, '=');
	if (!eq) {
		diag_add(d, "%s:%u: not Key=Value, ignored", file, line);
		if (*in == SECTION_RULE)
			c->rules[c->n_rules - 1].bad = true;
		return -EINVAL;
	}
	*eq = '\0';
	val = strip(eq + 1);
	name = strip(s);
	if (*in == SECTION_RULE)
		return config_rule_key_line(c, file, line, name, val, d);
	k = config_key_find(name);
	if (!k) {
		diag_add(d, "%s:%u: unknown key '%.64s', ignored", file, line, name);
		return -EINVAL;
	}
	if (k->parse(val, (char *)c + k->offset) < 0) {
		if (k->closed)
			diag_add(d, "%s:%u: bad value '%.64s' for %s: no core is stored until it is fixed", file, line,
				 val, k->name);
		else
			diag_add(d, "%s:%u: bad value '%.64s' for %s, default kept", file, line, val, k->name);
		return -EINVAL;
	}
	return 0;
}

/* Reads the file open as f, named path, into c. Returns 0, or -errno when it cannot be read. */
static int load_stream(struct config *c, FILE *f, const char *path, struct diag *d)
{
	enum section in = SECTION_NONE;
	char *text = NULL;
	size_t cap = 0;
	unsigned line = 0;
	int r = 0;

	errno = 0;
	while (getline(&text, &cap, f) >= 0)
		(void) config_parse_line(c, path, ++line, text, &in, d);
	/* A directory opens, then fails to read: that is no config file either. */
	if (ferror(f))
		r = errno ? -errno : -EIO;
	free(text);
	return r;
}

/* Reads path into c (which holds the defaults). Returns 0, or -errno when the file cannot be read. */
int config_load(struct config *c, const char *path, struct diag *d)
{
	FILE *f = fopen(path, "re");
	int r;

	if (!f)
		return -errno;
	r = load_stream(c, f, path, d);
	(void) fclose(f);
	return r;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_dropin(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return e->d_name[0] != '.' && n > 5 && strcmp(e->d_name + n - 5, ".conf") == 0;
}

/* One drop-in, opened without following a symlink planted in its place and read only if it is a regular file. */
static void load_dropin(struct config *c, int dirfd, const char *dir, const char *name, struct diag *d)
{
	char path[PATH_MAX + NAME_MAX + 2];
	struct stat st;
	FILE *f;
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	(void) snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		diag_add(d, "%.200s: %s, ignored", path, fd < 0 ? strerror(errno) : "not a regular file");
		return;
	}
	f = fdopen(fd, "re");
	if (!f)
		return;
	/* f owns fd from here on. */
	(void) TAKE_FD(fd);
	if (load_stream(c, f, path, d) < 0)
		diag_add(d, "cannot read %.200s", path);
	(void) fclose(f);
}

/*
 * The drop-ins of path: the .conf files of path.d in the C locale's order, each over what came before, as systemd reads its own
 * (/etc/coresink.conf.d/ for the default file). Returns the number read, or 0 when there is no such directory.
 */
int config_load_dropins(struct config *c, const char *path, struct diag *d)
{
	char dir[PATH_MAX];
	struct dirent **list = NULL;
	_cleanup_close_ int dirfd = -1;
	int n;

	if (snprintf(dir, sizeof(dir), "%s.d", path) >= (int)sizeof(dir))
		return 0;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		if (errno != ENOENT)
			diag_add(d, "cannot read %.200s: %s", dir, strerror(errno));
		return 0;
	}
	n = scandirat(dirfd, ".", &list, is_dropin, by_name);
	for (int i = 0; i < n; i++) {
		load_dropin(c, dirfd, dir, list[i]->d_name, d);
		free(list[i]);
	}
	free(list);
	return n > 0 ? n : 0;
}

/*
 * The defaults, then path over them. A missing default file is no problem (defaults are a valid configuration);
 * a missing file the user named, or one that cannot be read, is reported in d.
 */
void config_read(struct config *c, const char *path, bool named, struct diag *d)
{
	const struct diag before = *d;
	int r;

	config_defaults(c);
	r = config_load(c, path, d);
	/*
	 * A read that failed for a passing reason (a signal, a moment's want of memory or of fds, one I/O error) is
	 * made once more, from the defaults and the problems known before it: else the crash would go, with the
	 * defaults, to another Directory than the admin's (t-faults: read EINTR and openat EMFILE at the 1st call).
	 */
	if (r == -EINTR || r == -EAGAIN || r == -ENOMEM || r == -EMFILE || r == -ENFILE || r == -EIO) {
		config_free(c);
		config_defaults(c);
		*d = before;
		r = config_load(c, path, d);
	}
	if (r < 0 && (named || r != -ENOENT))
		diag_add(d, "cannot read %s: %s", path, strerror(-r));
	(void) config_load_dropins(c, path, d);
}
