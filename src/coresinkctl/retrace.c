/*
 * retrace.c: coresinkctl retrace [MATCH...] (coresink --retrace hands over to it): the newest matching crash's
 * core analysed again with the debug info at hand now (a -dbgsym package installed since, DebuginfodURLs= set or its server back),
 * logged as a new entry that names the crash's (retraced.c), and shown. A MATCH is coredumpctl's (PID, COMM, /EXE,
 * FIELD=VALUE), or the path of a stored core beneath Directory=. Root's: the analysis reads root's cores, and the
 * fetch step and the analysis run as their own users, as at the crash (src/lib/flow/retrace.c). The core is found
 * as dump finds it (corefile.c: beneath Directory, by its name, never through a link) and written raw to an unlinked
 * file in /var/tmp, where coredumpctl debug puts its own, for as long as the analysis reads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "admin.h"
#include "flow.h"
#include "config.h"
#include "report.h"
#include "retrace.h"

#define SCRATCH_DIR "/var/tmp"

/*
 * The crash's core, raw, in an unlinked file of SCRATCH_DIR (a memfd where encrypted): the fd, or -errno (-EFBIG: past c's bounds; -ENOSPC:
 * it would take SCRATCH_DIR's file system under KeepFree=, as a capture's chunk would).
 */
static int raw_core(const struct selection *sel, const struct config *cfg, int dirfd, const struct record *c,
		    uint64_t size)
{
	const struct side_use u = { 0 };
	enum limit which;
	_cleanup_close_ int fd = -1;
	int r;

	if (size > cfg->stack_trace_max)
		return -EFBIG;
	fd = corefile_scratch(c, SCRATCH_DIR);
	if (fd < 0)
		return fd;
	if (side_room(fd, &cfg->keep_free, NULL, &u, &which) < size)
		return -ENOSPC;
	r = corefile_write(sel, dirfd, c, fd);
	return r < 0 ? r : TAKE_FD(fd);
}

/*
 * What the retrace found, for the terminal: the entry's comm and signature, the debug info's servers and the trace
 * are text of the crashing process, its core and its modules, escaped as every field that reaches it.
 */
static void show_retrace(const struct record *c, const struct analysis *a, const struct signature *s)
{
	bool same = strcmp(s->hex, c->signature) == 0;

	printf("Retraced pid %d (", (int)c->pid);
	escape_fputs(stdout, c->comm, ESCAPE_BACKSLASH);
	printf("): signature %s%s", s->hex, same ? " (unchanged)" : ", was ");
	if (!same)
		escape_fputs(stdout, c->signature[0] ? c->signature : "none", ESCAPE_BACKSLASH);
	if (a->debuginfo[0]) {
		fputs("\nDebug info: ", stdout);
		escape_fputs(stdout, a->debuginfo, ESCAPE_BACKSLASH);
	}
	fputs("\n", stdout);
	if (a->why[0]) {
		fputs("Stack trace: ", stdout);
		escape_fputs(stdout, a->why, ESCAPE_BACKSLASH);
	}
	fputs("\n\n", stdout);
	escape_fputs(stdout, a->trace ? a->trace : "", ESCAPE_MULTILINE);
}

/* The crash c analysed again, its entry sent and the outcome shown. 0, 1 (no core) or EXIT_SYSTEM. */
static int retrace_one(const struct selection *sel, const char *config, bool named, const struct config *cfg,
		       int dirfd, const struct record *c)
{
	uint64_t size = 0, stamp = 0;
	_cleanup_close_ int fd = -1;
	int r;

	/* The entry's numbers, where they are numbers: a size it does not give is the bound's to check. */
	(void) parse_u64(c->size, &size);
	(void) parse_u64(c->timestamp, &stamp);
	fd = raw_core(sel, cfg, dirfd, c, size);
	struct retrace_in in = { .corefd = fd, .size = size, .exe = c->exe, .path = c->filename, .signal = c->sig };
	struct retrace_of of = { .entry_id = c->entry_id, .signature = c->signature, .usec = c->usec, .pid = c->pid,
				 .uid = c->uid, .signal = c->sig, .timestamp = stamp,
				 .comm = c->comm, .exe = c->exe, .filename = c->filename, .hostname = c->hostname };
	struct analysis a;
	struct signature s;

	if (fd < 0)
		return fail_code(fd == -ENOENT ? 1 : EXIT_SYSTEM, "retrace: the core of pid %d: %s", (int)c->pid,
				 fd == -EFBIG ? "larger than StackTraceMaxSize" :
				 fd == -ENOSPC ? "no room for it raw in " SCRATCH_DIR : corefile_strerror(fd));
	r = crash_retrace(config, named, &in, &a, &s);
	if (r == 0)
		r = report_retrace(&of, &a, &s);
	if (r < 0)
		(void) fail_code(0, "retrace: %s", a.why[0] ? a.why : strerror(-r));
	else
		show_retrace(c, &a, &s);
	analysis_free(&a);
	return r < 0 ? EXIT_SYSTEM : 0;
}

/* A match as coredumpctl takes it, or a path beneath Directory= as the stored core's (COREDUMP_FILENAME=). */
static int match_of(const struct config *cfg, const char *m, char **out)
{
	size_t n = strlen(cfg->directory);
	char field[4096];

	if (strncmp(m, cfg->directory, n) == 0 && m[n] == '/' && !strchr(m + n + 1, '/'))
		return asprintf(out, "COREDUMP_FILENAME=%s", m) < 0 ? -ENOMEM : 0;
	if (entries_match(m, field, sizeof(field)) < 0)
		return -EINVAL;
	*out = strdup(m);
	return *out ? 0 : -ENOMEM;
}

/* coresinkctl retrace [MATCH...], coresink --retrace [MATCH...]: 0, 1 for no such crash, or an exit code. */
int retrace_main(const char *config, bool named, const struct selection *base, int argc, char **argv)
{
	struct selection sel = *base;
	struct config cfg;
	struct diag d = { 0 };
	struct found f = { 0 };
	char **matches = calloc((size_t)argc + 1, sizeof(*matches));
	int r = matches ? 0 : EXIT_SYSTEM;
	_cleanup_close_ int dirfd = -1;

	if (geteuid() != 0) {
		free(matches);
		return fail_code(EXIT_USAGE, "retrace: only root reads the cores");
	}
	config_read(&cfg, config, named, &d);
	diag_print_as(&d, stderr);
	for (int i = 0; i < argc && r == 0; i++)
		if (match_of(&cfg, argv[i], &matches[i]) < 0)
			r = fail_code(EXIT_USAGE, "not a match: '%s'", argv[i]);
	sel.matches = matches;
	sel.n_matches = argc;
	sel.newest = 1;
	if (r == 0 && (r = entries_find(&sel, &f)) < 0)
		r = fail_code(EXIT_SYSTEM, "the journal: %s", strerror(-r));
	if (r == 0 && f.n == 0)
		r = (fprintf(stderr, "No coredumps found.\n"), 1);
	if (r == 0 && (dirfd = corefile_directory(&cfg)) < 0 && !f.c[f.n - 1].journal_core)
		r = fail_code(EXIT_SYSTEM, "%s: not opened", cfg.directory);
	if (r == 0)
		r = retrace_one(&sel, config, named, &cfg, dirfd, &f.c[f.n - 1]);
	entries_free(&f);
	for (int i = 0; matches && i < argc; i++)
		free(matches[i]);
	free(matches);
	config_free(&cfg);
	return r;
}
