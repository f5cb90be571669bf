/*
 * analysis.c: the stack trace of a stored core. stacktrace.c does the work in the sandbox (sandbox.c); it sends
 * back its findings as records, "key\0value\0", which this side reads with bounds and without trusting them: the
 * values are escaped when they go into the entry (report.c). How the sandbox ended is said in why: a trace cut at
 * the deadline or a limit is kept as far as it came.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "base.h"
#include "intake.h"
#include "stacktrace.h"

/* What the analysis may take: the core is mapped whole, and libdw's own memory beside it is bounded. */
#define ANALYSIS_DATA (256ULL << 20)
#define ANALYSIS_AS_EXTRA (1ULL << 30)
#define ANALYSIS_CPU_MIN 1

static int send_record(int out, const char *key, const char *value)
{
	int r;

	if (!value)
		return 0;
	r = io_write_full(out, key, strlen(key) + 1);
	return r < 0 ? r : io_write_full(out, value, strlen(value) + 1);
}

/* In the sandbox: the trace as text, then the package records. */
static int analyse(int corefd, int out, void *arg)
{
	const struct analysis_opts *o = arg;
	const unsigned n_mapped = o->mapped ? o->mapped->n : 0;
	const struct trace_files files = { o->mapped ? o->mapped->files : NULL, n_mapped, SANDBOX_FIRST_FD,
					   o->fetched, SANDBOX_FIRST_FD + (int)n_mapped };
	struct trace_meta meta;
	char *text = NULL, *canon = NULL;
	size_t len = 0, canon_len = 0;
	FILE *f = open_memstream(&text, &len), *canon_f;
	int r;

	if (!f)
		return -ENOMEM;
	/* libdwfl would ask debuginfod itself where this names servers: the analysis has no network, by design. */
	(void) unsetenv("DEBUGINFOD_URLS");
	if (o->needs_only) {
		r = stacktrace_needs(corefd, o->exe[0] ? o->exe : NULL, o->root_fd < 0, &files, o->debug_dir, f);
		if (fclose(f) != 0)
			return -ENOMEM;
		if (len > 0)
			(void) send_record(out, "needs", text);
		free(text);
		return r;
	}
	canon_f = open_memstream(&canon, &canon_len);
	if (!canon_f) {
		(void) fclose(f);
		free(text);
		return -ENOMEM;
	}
	/* In the process's own root, its executable's path as this side read it may name another file, or none. */
	r = stacktrace_write(corefd, o->exe[0] ? o->exe : NULL, o->root_fd < 0, &files, o->debug_dir, f, canon_f,
			     &meta);
	if (fclose(f) != 0 || fclose(canon_f) != 0)
		return -ENOMEM;
	/* A trace cut short by a malformed core still says what it found. */
	if (len > 0)
		(void) send_record(out, "trace", text);
	(void) send_record(out, "name", meta.package_name);
	(void) send_record(out, "version", meta.package_version);
	(void) send_record(out, "json", meta.package_json);
	if (canon_len > 0)
		(void) send_record(out, "canon", canon);
	(void) send_record(out, "lost", meta.lost);
	free(canon);
	if (meta.unread > 0) {
		char unread[sizeof(meta.unread_list) + 64];

		(void) snprintf(unread, sizeof(unread), "%u module(s) without their file: %s%s", meta.unread,
				meta.unread_list, meta.unread > 3 ? ", ..." : "");
		(void) send_record(out, "unread", unread);
	}
	trace_meta_free(&meta);
	free(text);
	return r;
}

static char **slot(struct analysis *a, const char *key)
{
	return strcmp(key, "trace") == 0 ? &a->trace : strcmp(key, "name") == 0 ? &a->package_name :
	       strcmp(key, "version") == 0 ? &a->package_version : strcmp(key, "json") == 0 ? &a->package_json :
	       strcmp(key, "unread") == 0 ? &a->unread : strcmp(key, "needs") == 0 ? &a->needs :
	       strcmp(key, "canon") == 0 ? &a->canon : strcmp(key, "lost") == 0 ? &a->lost : NULL;
}

/* Reads the records; a record cut by the output bound or a killed child is kept up to where it ends. */
static void take_records(const char *buf, size_t len, struct analysis *a)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *key = p, *value = memchr(p, '\0', (size_t)(end - p));
		char **dst;

		if (!value++ || value >= end)
			return;
		p = memchr(value, '\0', (size_t)(end - value));
		p = p ? p + 1 : end;
		dst = slot(a, key);
		if (dst && !*dst)
			*dst = strndup(value, (size_t)(p - value));
	}
}

static void say_why(const struct sandbox_result *res, const struct analysis_opts *o, struct analysis *a)
{
	switch (res->end) {
	case SANDBOX_DONE:
		/* A core without a thread or module to show (libdwfl read it, and found nothing). */
		if (!a->trace)
			(void) snprintf(a->why, sizeof(a->why), "the core holds nothing to unwind");
		return;
	case SANDBOX_TIMEOUT:
		(void) snprintf(a->why, sizeof(a->why), "stopped after %u ms (the deadline)", o->timeout_ms);
		return;
	case SANDBOX_KILLED:
		(void) snprintf(a->why, sizeof(a->why), "stopped by signal %d (%s; a CPU or memory limit)", res->code,
				strsignal(res->code));
		return;
	case SANDBOX_TOO_LONG:
		(void) snprintf(a->why, sizeof(a->why), "stopped at %d bytes of output", ANALYSIS_OUTPUT_MAX);
		return;
	case SANDBOX_FAILED:
		/* It never said what confined it: it failed to confine itself, and read nothing. */
		if (res->confined == 0) {
			(void) snprintf(a->why, sizeof(a->why), "not made: the sandbox could not be set up%s",
					o->root_fd >= 0 ? " (in the process's own root, which needs user namespaces)" : "");
			return;
		}
		/* FALLTHROUGH */
	default:
		(void) snprintf(a->why, sizeof(a->why), "the core could not be read as an ELF core");
	}
}

/* The ids of ANALYSIS_USER (creds_system_user()). 0 or -errno (-ENOENT: no such user). */
int analysis_user(uid_t *uid, gid_t *gid)
{
	return creds_system_user(ANALYSIS_USER, uid, gid);
}

/* A read-only fd of the same file: the sandbox's filter is not the only thing that keeps the core unchanged. */
static int reopen_read_only(int fd)
{
	char path[64];
	int ro;

	(void) snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	return ro < 0 ? -errno : ro;
}

/*
 * The fds to hand to the sandbox: the mapped files', in their order, then the fetched ones (trace_files says where
 * each begins); NULL (n 0) when there are none.
 */
static int *handed_fds(const struct mapped *m, const struct fetch_files *ff, unsigned *n)
{
	unsigned nm = m ? m->n : 0, nf = ff ? ff->n : 0;
	int *fds = nm + nf ? calloc(nm + nf, sizeof(*fds)) : NULL;

	*n = fds ? nm + nf : 0;
	for (unsigned i = 0; fds && i < nm; i++)
		fds[i] = m->files[i].fd;
	for (unsigned i = 0; fds && i < nf; i++)
		fds[nm + i] = ff->f[i].fd;
	return fds;
}

/* What the entry says of the mapped files: how many were handed, and why not more. */
static void say_files(const struct mapped *m, struct analysis *a)
{
	size_t n, len = sizeof(a->files);

	if (!m)
		return;
	n = (size_t)snprintf(a->files, len, "%u opened from the mappings", m->n);
	if (m->over && n < len)
		n += (size_t)snprintf(a->files + n, len - n, ", %u over the bound of %d", m->over, MAPPED_MAX);
	if (m->skipped && n < len)
		n += (size_t)snprintf(a->files + n, len - n, ", %u not opened (FUSE, not mounted, not regular)",
				      m->skipped);
	if (m->why && n < len)
		(void) snprintf(a->files + n, len - n, "; %s", m->why);
}

/*
 * Analyses the core in corefd (readable, from offset 0) in the sandbox, as o->uid. 0 with what was found in a (and
 * why not more in a->why), or -errno when the sandbox could not run at all. Free a with analysis_free().
 */
int analysis_run(int corefd, const struct analysis_opts *o, struct analysis *a)
{
	struct sandbox_limits l = {
		.uid = o->uid, .gid = o->gid, .data = ANALYSIS_DATA,
		.address_space = o->core_size + ANALYSIS_AS_EXTRA,
		.cpu_seconds = o->timeout_ms / 1000 + ANALYSIS_CPU_MIN,
		.timeout_ms = o->timeout_ms, .output_max = ANALYSIS_OUTPUT_MAX, .root_fd = o->root_fd,
	};
	struct analysis_opts arg = *o;
	struct sandbox_result res;
	int *fds = handed_fds(o->mapped, o->fetched, &l.n_fds), r, ro;

	*a = (struct analysis) { 0 };
	say_files(o->mapped, a);
	l.fds = fds;
	ro = reopen_read_only(corefd);
	if (ro < 0) {
		free(fds);
		return ro;
	}
	r = sandbox_run(&l, ro, analyse, &arg, &res);
	free(fds);
	/* What the analysis read of the core leaves the page cache with it. */
	(void) posix_fadvise(ro, 0, 0, POSIX_FADV_DONTNEED);
	fd_close(&ro);
	if (r < 0)
		return r;
	take_records(res.out, res.len, a);
	say_why(&res, o, a);
	a->elapsed_us = res.elapsed_us;
	a->confined = res.confined;
	sandbox_result_free(&res);
	return 0;
}

void analysis_free(struct analysis *a)
{
	free(a->trace);
	free(a->package_name);
	free(a->package_version);
	free(a->package_json);
	free(a->unread);
	free(a->needs);
	free(a->canon);
	free(a->lost);
	*a = (struct analysis) { 0 };
}
