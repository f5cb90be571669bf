/*
 * collect.c: CollectDirectory=, the collect hooks (systemd #41039: what can only be learnt while the crashed process
 * still exists). Each program of the directory (parts.c: root's, run-parts' names) is started as the crash is
 * admitted, before its core is read, with the crashed process's pid as its first argument and, where the mode has
 * one, its pidfd as fd 3 (CORESINK_PIDFD=3). It runs as ExecUpload= runs (upload.c): as CollectUser=, never root,
 * no capabilities, no_new_privs, its own process group, an environment of our making and nothing of the crash's;
 * its standard output and error come back in one pipe, of which COLLECT_OUTPUT_MAX bytes are read.
 * The release of the process waits for them (collect_wait), at most until their deadline, CollectTimeoutSec= from
 * their start, and never otherwise: one still running then is killed with its group, as is what one that ended left
 * behind (a child holding the pipe), and one whose output passes the bound is killed at once. Its lines KEY=VALUE
 * (KEY of A-Z, 0-9, _) become fields; anything else is counted, and the first such line shown in what is said.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "upload.h"

#define FLOOD_TICK_MS 20
#define REAP_MS 200

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

struct hook_exec {
	const char *path;
	char *argv0;              /* the same path, writable as execve's argv is */
	pid_t pid;
	bool pidfd;
};

/* In the sandbox's child: /dev/null on 0, the pipe on 1 and 2, the pidfd (or nothing) on 3; then the hook. */
static int exec_hook(int fd, int out, void *arg)
{
	const struct hook_exec *x = arg;
	char pid[24], pid_env[40], *argv[3];
	static char path[] = "PATH=/usr/local/bin:/usr/bin:/bin", home[] = "HOME=/", pidfd[] = "CORESINK_PIDFD=3";
	char *env[] = { path, home, pid_env, x->pidfd ? pidfd : NULL, NULL };

	(void) fd;
	(void) snprintf(pid, sizeof(pid), "%d", (int)x->pid);
	(void) snprintf(pid_env, sizeof(pid_env), "CORESINK_PID=%d", (int)x->pid);
	argv[0] = x->argv0;
	argv[1] = pid;
	argv[2] = NULL;
	if (dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0)
		return -1;
	(void) close(out);
	execve(x->path, argv, env);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", x->path, strerror(errno));
	return -1;
}

/* The hooks of dir ("": none), listed into co (parts.c; what is not run said in d): how many, or -errno. */
int collect_list(struct collect *co, const char *dir, struct diag *d)
{
	int r;

	*co = (struct collect) { 0 };
	(void) snprintf(co->dir, sizeof(co->dir), "%s", dir);
	r = parts_list(dir, &co->p, d);
	return r < 0 ? r : (int)co->p.n;
}

/*
 * Starts the hooks collect_list() listed for the crashed process pid (pidfd, or -1), each as user, their deadline
 * timeout_ms from now. 0, or -errno where none could be started (the user).
 */
int collect_start(struct collect *co, const char *user, unsigned timeout_ms, pid_t pid, int pidfd)
{
	struct sandbox_limits l = { .cpu_seconds = timeout_ms / 1000 + 1, .timeout_ms = timeout_ms,
				    .output_max = COLLECT_OUTPUT_MAX, .root_fd = -1, .watch_exit = true, .exec = true };
	int r = upload_ids(user, &l.uid, &l.gid);

	if (r < 0)
		return r;
	/*
	 * What a hook leaves behind is this process's to reap once the hook is gone (end_hook): not init's, which may
	 * leave it a zombie long after the capture.
	 */
	(void) prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	for (unsigned i = 0; i < co->p.n; i++) {
		char path[PATH_MAX + NAME_MAX + 2];
		struct hook_exec x = { path, path, pid, pidfd >= 0 };

		(void) snprintf(path, sizeof(path), "%s/%s", co->dir, co->p.name[i]);
		co->started[i] = sandbox_start(&l, pidfd, exec_hook, &x, &co->ch[i]);
	}
	co->running = true;
	return 0;
}

/*
 * The key of a line "KEY=VALUE" (len bytes, no newline): its length in *key_len, 0; or -EINVAL for a line that is
 * not one (no '=', an empty or too long key, a byte of the key not A-Z, 0-9, _, a NUL anywhere).
 */
int collect_key(const char *line, size_t len, size_t *key_len)
{
	const char *eq = memchr(line, '=', len);
	size_t k;

	if (!eq || memchr(line, '\0', len))
		return -EINVAL;
	k = (size_t)(eq - line);
	if (k == 0 || k > COLLECT_KEY_MAX)
		return -EINVAL;
	for (size_t i = 0; i < k; i++)
		if (!((line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= '0' && line[i] <= '9') || line[i] == '_'))
			return -EINVAL;
	*key_len = k;
	return 0;
}

/* Whether fields (n_fields lines) has key already. */
static bool has_key(const char *fields, const char *key, size_t k)
{
	for (const char *l = fields; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, k) == 0 && l[k] == '=')
			return true;
	return false;
}

/* A hook's output (len bytes) taken into co's fields: the number taken, and the lines that were not, in *bad. */
static unsigned take_fields(struct collect *co, FILE *f, const char *out, size_t len, unsigned *bad, char *first,
			    size_t first_len)
{
	unsigned taken = 0;

	for (size_t at = 0; at < len;) {
		const char *nl = memchr(out + at, '\n', len - at), *line = out + at;
		size_t n = nl ? (size_t)(nl - line) : len - at, k;
		char value[COLLECT_VALUE_MAX + 1], v[COLLECT_VALUE_MAX * ESCAPE_GROWTH + 1];

		at += n + 1;
		if (n == 0)
			continue;
		(void) fflush(f);
		if (collect_key(line, n, &k) < 0 || has_key(co->fields, line, k) || co->n_fields >= COLLECT_FIELDS_MAX) {
			if ((*bad)++ == 0) {
				char cut[128];

				(void) snprintf(cut, sizeof(cut), "%.*s", (int)(n < 120 ? n : 120), line);
				(void) escape_text(first, first_len, cut, ESCAPE_BACKSLASH);
			}
			continue;
		}
		(void) snprintf(value, sizeof(value), "%.*s", (int)(n - k - 1 < COLLECT_VALUE_MAX ? n - k - 1 :
									 COLLECT_VALUE_MAX), line + k + 1);
		(void) escape_text(v, sizeof(v), value, ESCAPE_BACKSLASH);
		fprintf(f, "%.*s=%s\n", (int)k, line, v);
		co->n_fields++;
		taken++;
	}
	return taken;
}

/* What came of hook i (res: taken fields, and bad lines not taken, the first of them) said into co->said. */
static void say(struct collect *co, unsigned i, const struct sandbox_result *res, unsigned taken, unsigned bad,
		const char *first)
{
	size_t at = strlen(co->said);
	char end[128], lines[640] = "";

	if (co->started[i] < 0)
		(void) snprintf(end, sizeof(end), "not started: %s", strerror(-co->started[i]));
	else
		sandbox_ending(res, end, sizeof(end));
	co->failed |= co->started[i] < 0 || res->end != SANDBOX_DONE;
	if (bad)
		(void) snprintf(lines, sizeof(lines), " (%u line%s not taken, the first: \"%s\")", bad,
				bad == 1 ? "" : "s", first);
	(void) snprintf(co->said + at, sizeof(co->said) - at, "%s%s: %s, %u field%s%s", at ? "; " : "",
			co->p.name[i], end, taken, taken == 1 ? "" : "s", lines);
}

/*
 * Ends hook i (sandbox_end: what its group left is killed as it is reaped), then reaps what it left: this process
 * is their subreaper. At most REAP_MS: a process killed but stuck in the kernel is left to end on its own.
 */
static int end_hook(struct collect *co, unsigned i, struct sandbox_result *res)
{
	const struct timespec tick = { 0, 1000000 };
	const pid_t group = co->ch[i].pid;
	int r = sandbox_end(&co->ch[i], res);

	for (unsigned t = 0; t < REAP_MS; t++) {
		pid_t p = waitpid(-group, NULL, WNOHANG);

		if (p < 0)
			break;
		if (p == 0)
			(void) nanosleep(&tick, NULL);
	}
	return r;
}

/* Whether hook i's pipe holds more than its bound: it floods, and is ended now rather than at the deadline. */
static bool floods(const struct collect *co, unsigned i)
{
	int queued = 0;

	return ioctl(co->ch[i].rfd, FIONREAD, &queued) == 0 && (size_t)queued >= co->ch[i].max;
}

/*
 * Ends each hook as it exits (its pidfd), until all did or their deadline: its output is then all in its pipe (the
 * bound is below a pipe's 64 KiB), and the time it took its own. One whose pipe holds more than the bound is ended
 * at the next look (every FLOOD_TICK_MS), as over it.
 */
static void end_as_they_exit(struct collect *co, struct sandbox_result *res, bool *ended)
{
	for (;;) {
		struct pollfd p[PARTS_MAX];
		unsigned at[PARTS_MAX], n = 0;
		uint64_t t = clock_us(), deadline = co->ch[0].deadline;

		for (unsigned i = 0; i < co->p.n; i++)
			if (!ended[i] && co->started[i] == 0 && co->ch[i].pidfd >= 0) {
				deadline = co->ch[i].deadline;
				p[n] = (struct pollfd) { .fd = co->ch[i].pidfd, .events = POLLIN };
				at[n++] = i;
			}
		if (n == 0 || t >= deadline)
			return;
		if (poll(p, n, (int)min_u64((deadline - t + 999) / 1000, FLOOD_TICK_MS)) < 0 && errno != EINTR)
			return;
		for (unsigned j = 0; j < n; j++)
			if (p[j].revents || floods(co, at[j]))
				ended[at[j]] = end_hook(co, at[j], &res[at[j]]) == 0;
	}
}

/*
 * Waits for the hooks collect_start() started, until each ended or their deadline (one still running then is
 * killed), then takes their fields, in their names' order, and says what came of each. Nothing when none was
 * started.
 */
void collect_wait(struct collect *co)
{
	struct sandbox_result res[PARTS_MAX] = { 0 };
	bool ended[PARTS_MAX] = { false };
	size_t len = 0;
	FILE *f;

	if (!co->running)
		return;
	co->running = false;
	end_as_they_exit(co, res, ended);
	f = open_memstream(&co->fields, &len);
	for (unsigned i = 0; i < co->p.n; i++) {
		unsigned taken = 0, bad = 0;
		char first[128 * ESCAPE_GROWTH + 1] = "";

		if (co->started[i] == 0 && !ended[i])
			ended[i] = end_hook(co, i, &res[i]) == 0;
		if (ended[i] && f)
			taken = take_fields(co, f, res[i].out, res[i].len, &bad, first, sizeof(first));
		say(co, i, &res[i], taken, bad, first);
		sandbox_result_free(&res[i]);
	}
	if (f && fclose(f) != 0) {
		free(co->fields);
		co->fields = NULL;
		co->n_fields = 0;
	}
}

/* Everything of co given back; hooks still running (a crash that failed before its release) waited for first. */
void collect_free(struct collect *co)
{
	collect_wait(co);
	free(co->fields);
	co->fields = NULL;
}
