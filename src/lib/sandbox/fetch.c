/*
 * fetch.c: the fetch step, from the handler's side (DebuginfodURLs=). The analysis's first pass names the modules
 * that need debug info from elsewhere; those the cache has (or that no server had, a little while ago) are not
 * asked for; the rest go, as build-ids and nothing else, to a new program (this one, --fetch-debuginfo:
 * debuginfod.c) run as FETCH_USER in sandbox.c's exec mode: no environment, no fd of the crash, no capability, its
 * output bounded, killed with all it started at the deadline. It confines itself further and keeps in the cache
 * only what has the build-id asked for. What it says becomes CORESINK_DEBUGINFO=.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "fetch.h"
#include "sandbox.h"
#include "store.h"

#define FETCH_OUTPUT_MAX (64 * 1024)
#define FETCH_ARGS_MAX (FETCH_NEEDS_MAX + 10)

/* "KIND BUILD-ID NAME" lines (stacktrace_needs()) into needs: how many, the first max. */
int fetch_parse_needs(const char *text, struct fetch_need *needs, unsigned max)
{
	unsigned n = 0;

	for (const char *p = text; p && *p && n < max; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		struct fetch_need *x = &needs[n];

		if (sscanf(p, "%11s %128[0-9a-f] %63[^\n]", x->kind, x->id, x->name) == 3 && strlen(x->id) >= 2 &&
		    (strcmp(x->kind, "debuginfo") == 0 || strcmp(x->kind, "executable") == 0))
			n++;
	}
	return (int)n;
}

/*
 * The servers: the setting's URLs, or "system"'s, the words of the .urls files in /etc/debuginfod. 0, or -ENOENT for
 * none.
 */
int fetch_urls(const char *setting, char *urls, size_t len)
{
	glob_t g;
	size_t used = 0;

	urls[0] = '\0';
	if (strcmp(setting, "system") != 0) {
		(void) snprintf(urls, len, "%s", setting);
		return urls[0] ? 0 : -ENOENT;
	}
	if (glob("/etc/debuginfod/*.urls", 0, NULL, &g) != 0)
		return -ENOENT;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char word[512];
		FILE *f = fopen(g.gl_pathv[i], "re");

		while (f && fscanf(f, "%511s", word) == 1)
			if ((strncmp(word, "http://", 7) == 0 || strncmp(word, "https://", 8) == 0) &&
			    used + strlen(word) + 2 < len)
				used += (size_t)snprintf(urls + used, len - used, "%s%s", used ? " " : "", word);
		if (f)
			(void) fclose(f);
	}
	globfree(&g);
	return urls[0] ? 0 : -ENOENT;
}

/*
 * The cache in the core directory dirfd, made where missing: a directory of uid's (FETCH_USER), 0700: what root's
 * crashes needed (their build-ids, and those no server had) is nobody else's to learn; the handler hands the
 * analysis what it needs (fetch_open()). Never a symlink planted in its place. Its fd, or -errno.
 */
int fetch_cache(int dirfd, uid_t uid, gid_t gid)
{
	return ownedir_open(dirfd, FETCH_DIR, uid, gid, 0700, true);
}

/*
 * Whether the cache has what n asks for (.build-id/xx/rest.debug, or .build-id/xx/rest for an executable), or no
 * server had it less than FETCH_MISS_SECONDS ago (.miss beside it): then it is not asked for again.
 */
bool fetch_have(int cachefd, const struct fetch_need *n, uint64_t now)
{
	char path[256];
	struct stat st;
	bool debug = strcmp(n->kind, "debuginfo") == 0;

	(void) snprintf(path, sizeof(path), ".build-id/%.2s/%s%s", n->id, n->id + 2, debug ? ".debug" : "");
	if (fstatat(cachefd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		return true;
	(void) snprintf(path, sizeof(path), ".build-id/%.2s/%s%s.miss", n->id, n->id + 2, debug ? ".debug" : "");
	return fstatat(cachefd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && (uint64_t)st.st_mtime + FETCH_MISS_SECONDS > now;
}

/* The cache's file for n, opened beneath cachefd (open_beneath(): no link followed, a regular file). The fd or -errno. */
static int open_cached(int cachefd, const struct fetch_need *n)
{
	char path[256];

	(void) snprintf(path, sizeof(path), ".build-id/%.2s/%s%s", n->id, n->id + 2,
			strcmp(n->kind, "debuginfo") == 0 ? ".debug" : "");
	return open_beneath(cachefd, path);
}

/*
 * The cache's files for the n needs, opened by the handler for the analysis (its user cannot read the cache), into
 * out; each is still checked there against the build-id the core names. How many; those the cache has and that
 * could not be opened are counted in out too.
 */
unsigned fetch_open(int cachefd, const struct fetch_need *needs, int n, struct fetch_files *out)
{
	*out = (struct fetch_files) { .n = 0 };
	for (int i = 0; i < n && out->n < FETCH_NEEDS_MAX; i++) {
		struct fetch_file *f = &out->f[out->n];
		int fd = open_cached(cachefd, &needs[i]);

		if (fd < 0) {
			/* A file the step left that cannot be opened is said, not passed over (fetch_debuginfo()). */
			if (fd != -ENOENT && out->unopened++ == 0)
				out->unopened_error = fd;
			continue;
		}
		f->fd = fd;
		f->debug = strcmp(needs[i].kind, "debuginfo") == 0;
		(void) snprintf(f->id, sizeof(f->id), "%s", needs[i].id);
		out->n++;
	}
	return out->n;
}

void fetch_files_close(struct fetch_files *ff)
{
	for (unsigned i = 0; i < ff->n; i++)
		fd_close(&ff->f[i].fd);
	ff->n = 0;
}

struct fetch_exec {
	char **argv;
};

/* In the sandbox's child (exec mode): its output on 1 and 2, nothing on 0; then the step's program. */
static int exec_step(int fd, int out, void *arg)
{
	const struct fetch_exec *x = arg;
	char *const env[] = { NULL };

	(void) fd;
	if (dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0)
		return -1;
	(void) close(SANDBOX_OUT_FD);
	execve(x->argv[0], x->argv, env);
	dprintf(STDERR_FILENO, "error cannot run %s: %s\n", x->argv[0], strerror(errno));
	return -1;
}

/* The name of the module j asked for with build-id id. */
static const char *name_of(const struct fetch_job *j, const char *id)
{
	for (unsigned i = 0; i < j->n; i++)
		if (strcmp(j->needs[i].id, id) == 0)
			return j->needs[i].name;
	return id;
}

/* The step's "error WHY" line, where it could not start (not confined, no library), into why; false for none. */
static bool step_error(const char *out, char *why, size_t len)
{
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, "error ", 6) == 0) {
			(void) snprintf(why, len, "not fetched: %.*s", (int)strcspn(p + 6, "\n"), p + 6);
			return true;
		}
	return false;
}

/* What the step said, one record a line ("fetched KIND ID URL", "missing KIND ID WHY"), as one sentence in said. */
static void summarize(const struct fetch_job *j, const char *out, char *said, size_t len)
{
	char got[2048] = "", miss[2048] = "";
	bool said_of[FETCH_NEEDS_MAX] = { false };
	size_t g = 0, m = 0;
	unsigned n_got = 0, n_miss = 0;

	if (step_error(out, said, len))
		return;
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char what[16], kind[16], id[129], rest[512];

		if (sscanf(p, "%15s %15s %128s %511[^\n]", what, kind, id, rest) != 4)
			continue;
		for (unsigned i = 0; i < j->n && i < FETCH_NEEDS_MAX; i++)
			said_of[i] |= strcmp(j->needs[i].id, id) == 0;
		if (strcmp(what, "fetched") == 0 && g < sizeof(got)) {
			n_got++;
			g += (size_t)snprintf(got + g, sizeof(got) - g, "%s%s%s from %s", g ? ", " : "", name_of(j, id),
					      strcmp(kind, "executable") == 0 ? " (executable)" : "", rest);
		} else if (strcmp(what, "missing") == 0 && m < sizeof(miss)) {
			n_miss++;
			m += (size_t)snprintf(miss + m, sizeof(miss) - m, "%s%s (%s)", m ? ", " : "", name_of(j, id), rest);
		}
	}
	/* What the step did not get to say before it was stopped. */
	for (unsigned i = 0; i < j->n && i < FETCH_NEEDS_MAX && m < sizeof(miss); i++)
		if (!said_of[i]) {
			n_miss++;
			m += (size_t)snprintf(miss + m, sizeof(miss) - m, "%s%s (no answer in time)", m ? ", " : "",
					      j->needs[i].name);
		}
	(void) snprintf(said, len, "fetched %u: %s; not fetched %u: %s", n_got, n_got ? got : "none", n_miss,
			n_miss ? miss : "none");
}

/*
 * Runs the step for the job's modules, to its end or its deadline; what it fetched, from where, and why not the rest
 * go into said. 0, or -errno where it could not be run.
 */
int fetch_run(const struct fetch_job *j, char *said, size_t len)
{
	char handler[4096], cache[4096], urls[1024], self[] = "--fetch-debuginfo";
	char timeout[24], max[24], keep[24], room[24], ids[FETCH_NEEDS_MAX][160], *argv[FETCH_ARGS_MAX];
	struct fetch_exec x = { argv };
	struct sandbox_limits l = { .uid = j->uid, .gid = j->gid, .cpu_seconds = j->timeout_ms / 1000 + 1,
				    .timeout_ms = j->timeout_ms, .output_max = FETCH_OUTPUT_MAX, .root_fd = -1,
				    .exec = true };
	struct sandbox_result res;
	_cleanup_close_ int null = -1;
	int n = 0, r;

	(void) snprintf(timeout, sizeof(timeout), "%u", j->timeout_ms);
	(void) snprintf(max, sizeof(max), "%llu", (unsigned long long)j->max_use);
	(void) snprintf(keep, sizeof(keep), "%llu", (unsigned long long)j->keep_free);
	(void) snprintf(room, sizeof(room), "%llu", (unsigned long long)j->room);
	if (snprintf(handler, sizeof(handler), "%s", j->handler) >= (int)sizeof(handler) ||
	    snprintf(cache, sizeof(cache), "%s", j->cache) >= (int)sizeof(cache) ||
	    snprintf(urls, sizeof(urls), "%s", j->urls) >= (int)sizeof(urls))
		return -ENAMETOOLONG;
	argv[n++] = handler, argv[n++] = self, argv[n++] = cache, argv[n++] = urls;
	argv[n++] = timeout, argv[n++] = max, argv[n++] = keep, argv[n++] = room;
	for (unsigned i = 0; i < j->n && i < FETCH_NEEDS_MAX; i++) {
		(void) snprintf(ids[i], sizeof(ids[i]), "%s:%s", j->needs[i].kind, j->needs[i].id);
		argv[n++] = ids[i];
	}
	argv[n] = NULL;
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0)
		return -errno;
	r = sandbox_run(&l, null, exec_step, &x, &res);
	if (r < 0)
		return r;
	summarize(j, res.out, said, len);
	if (res.end == SANDBOX_TIMEOUT && strlen(said) + 64 < len)
		(void) snprintf(said + strlen(said), len - strlen(said), "; stopped at DebuginfodTimeoutSec (%u ms)",
				j->timeout_ms);
	else if (res.end != SANDBOX_DONE && strlen(said) + 64 < len)
		(void) snprintf(said + strlen(said), len - strlen(said), "; the step ended: %s (%d)",
				sandbox_end_to_string(res.end), res.code);
	sandbox_result_free(&res);
	return 0;
}
