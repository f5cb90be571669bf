/*
 * upload.c: ExecUpload=. The command is split into words once, as systemd splits ExecStart= (blanks separate words,
 * double quotes keep one word together, backslash escapes inside them); each specifier expands inside its word, to
 * a value made of name_sanitize()'s bytes only, so that no value can add a word, a quote, a path component or a
 * shell's meta-character. The process's own strings reach the command escaped, in its environment and JSON. It runs
 * through sandbox.c (exec mode): an unprivileged user, no capabilities, no_new_privs, killed with its group at the
 * deadline, its output bounded. A core still to be sent carries UPLOAD_XATTR, which coresink --retry-uploads reads.
 */
#include <errno.h>
#include <pwd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base.h"
#include "store.h"
#include "upload.h"

#define BACKOFF_FIRST 60
#define BACKOFF_MAX 86400
#define LABEL_KEY_MAX 253       /* a Kubernetes label's key: a prefix of 253, a name of 63 */

/*
 * The key of %{KEY} at s (just past its '{'): its length, up to the '}', where it is a label key's alphabet
 * (letters, digits, "-_./", labels.c's) and fits; else -EINVAL.
 */
static int label_key(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./");

	return n > 0 && n <= LABEL_KEY_MAX && s[n] == '}' ? (int)n : -EINVAL;
}

/* The value of the first word KEY=VALUE of words (blank-separated), key the n bytes at key: into out, or "". */
static void label_value(const char *words, const char *key, size_t n, char *out, size_t len)
{
	out[0] = '\0';
	for (const char *w = words; w && *w; w += strcspn(w, " "), w += *w == ' ') {
		size_t wl = strcspn(w, " ");

		if (wl > n && strncmp(w, key, n) == 0 && w[n] == '=') {
			(void) snprintf(out, len, "%.*s", (int)(wl - n - 1), w + n + 1);
			return;
		}
	}
}

/*
 * The labels command's %{KEY} specifiers name, as "KEY=VALUE" words into out: each key's value from the
 * container's own labels, else its pod's, left out where neither has it. What a capture keeps on the core
 * (UPLOAD_LABELS_XATTR) for its retries: only those, not every label (a file system's room for attributes is small,
 * and the upload's pending mark needs its share).
 */
void upload_labels(const char *command, const char *labels, const char *pod_labels, char *out, size_t len)
{
	char value[256];
	size_t used = 0;
	int n, k;

	out[0] = '\0';
	for (const char *p = strstr(command, "%{"); p; p = strstr(p + 2, "%{")) {
		if ((k = label_key(p + 2)) < 0)
			continue;
		label_value(labels, p + 2, (size_t)k, value, sizeof(value));
		if (!value[0])
			label_value(pod_labels, p + 2, (size_t)k, value, sizeof(value));
		if (!value[0])
			continue;
		n = snprintf(out + used, len - used, "%s%.*s=%s", used ? " " : "", k, p + 2, value);
		if (n < 0 || (size_t)n >= len - used) {
			out[used] = '\0';
			return;
		}
		used += (size_t)n;
	}
}

/*
 * Appends the value of the specifier at *s (past its '%'; *s left on its last byte) to the word at *p (below end);
 * where it begins the word (first), a leading '-' as '_' (word() says why). 0, or -EINVAL for an unknown one, -E2BIG.
 */
static int expand(const char **s, const struct upload_names *n, char **p, const char *end, bool first)
{
	char num[24], safe[NAME_COMM_MAX + 1], value[256];
	const char *v = num;
	size_t len;
	int k;

	switch (**s) {
	case 'f': v = n->file; break;
	case 'd': v = n->dir; break;
	case 'H': v = n->host; break;
	case 'e': name_sanitize(n->comm, safe, sizeof(safe)); v = safe; break;
	case 'P': (void) snprintf(num, sizeof(num), "%d", (int)n->pid); break;
	case 'u': (void) snprintf(num, sizeof(num), "%u", (unsigned)n->uid); break;
	case 't': (void) snprintf(num, sizeof(num), "%" PRIu64, n->time); break;
	/* Outside a pod, "unknown": a word that still names a place (cores/unknown/), never an empty one. */
	case 'N': name_sanitize(n->pod_namespace ? n->pod_namespace : "", safe, sizeof(safe)); v = safe; break;
	case 'O': name_sanitize(n->pod_name ? n->pod_name : "", safe, sizeof(safe)); v = safe; break;
	case '%': v = "%"; break;
	/* A label's value, "unknown" where neither the container nor its pod has it, as %N and %O. */
	case '{':
		if ((k = label_key(*s + 1)) < 0)
			return -EINVAL;
		label_value(n->labels, *s + 1, (size_t)k, value, sizeof(value));
		name_sanitize(value, safe, sizeof(safe));
		v = safe;
		*s += k + 1;
		break;
	default: return -EINVAL;
	}
	len = strlen(v ? v : "");
	if ((size_t)(end - *p) <= len)
		return -E2BIG;
	memcpy(*p, v ? v : "", len);
	if (first && len > 0 && (*p)[0] == '-')
		(*p)[0] = '_';
	*p += len;
	return 0;
}

/*
 * One word from *s into *p (NUL-terminated), quotes and escapes resolved, specifiers expanded. A value that begins
 * the word is never an option: its leading '-' is written '_' (a process may name itself "--upload-file", and curl
 * would take "%e" for one); inside the word ("https://h/%e") it stays. 0 or -errno.
 */
static int word(const char **s, const struct upload_names *n, char **p, const char *end)
{
	char *const start = *p;
	bool quoted = false;
	int r = 0;

	for (; r == 0 && **s && (quoted || (**s != ' ' && **s != '\t')); (*s)++) {
		if (**s == '"') {
			quoted = !quoted;
			continue;
		}
		if (quoted && **s == '\\' && ((*s)[1] == '"' || (*s)[1] == '\\'))
			(*s)++;
		if (**s == '%') {
			r = (*s)[1] ? (++(*s), expand(s, n, p, end, *p == start)) : -EINVAL;
			continue;
		}
		if (*p >= end - 1)
			return -E2BIG;
		*(*p)++ = **s;
	}
	if (quoted)
		return -EINVAL;
	if (r == 0 && *p >= end)
		return -E2BIG;
	if (r == 0)
		*(*p)++ = '\0';
	return r;
}

/*
 * The command's words into argv (NULL-terminated, UPLOAD_ARGS_MAX at most), their bytes in buf. The first must be
 * an absolute path. The count, or -errno: -EINVAL for a bad command.
 */
int upload_argv(const char *command, const struct upload_names *n, char *buf, size_t len, char **argv)
{
	const char *s = command;
	char *p = buf, *end = buf + len;
	int argc = 0, r;

	if (len == 0)
		return -E2BIG;
	/* What argv[0] is checked by below, should no word come (clang's analyzer does not see word() write it). */
	buf[0] = '\0';
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (argc >= UPLOAD_ARGS_MAX - 1)
			return -E2BIG;
		argv[argc] = p;
		r = word(&s, n, &p, end);
		if (r < 0)
			return r;
		argc++;
	}
	argv[argc] = NULL;
	return argc > 0 && argv[0][0] == '/' ? argc : -EINVAL;
}

struct exec_arg {
	char **argv;
	char *const *env;
};

/* In the sandbox's child: the core on 0, the output pipe on 1 and 2, the JSON on 3; then the command. */
static int exec_command(int fd, int out, void *arg)
{
	const struct exec_arg *x = arg;

	if (dup2(fd, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0 ||
	    dup2(SANDBOX_ROOT_FD, 3) < 0)
		return -1;
	(void) close(SANDBOX_OUT_FD);
	(void) close(SANDBOX_ROOT_FD);
	execve(x->argv[0], x->argv, x->env);
	dprintf(STDERR_FILENO, "%s: cannot run %s: %s\n", diag_program_name(), x->argv[0], strerror(errno));
	return -1;
}

/* A memfd holding text, read from its start: what a sandboxed command reads its JSON from. fd or -errno. */
int upload_text_fd(const char *text)
{
	_cleanup_close_ int fd = memfd_create("coresink-crash.json", MFD_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = io_write_full(fd, text, strlen(text));
	if (r == 0 && lseek(fd, 0, SEEK_SET) < 0)
		r = -errno;
	return r < 0 ? r : TAKE_FD(fd);
}

/* UploadUser='s ids (the user of ExecUpload= and of the notifiers); never root. 0 or -errno. */
int upload_ids(const char *user, uid_t *uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (getpwnam_r(user, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return -ENOENT;
	if (res->pw_uid == 0 || res->pw_gid == 0)
		return -EPERM;
	*uid = res->pw_uid;
	*gid = res->pw_gid;
	return 0;
}

/* Runs the job's command to its end or its deadline. 0 with res filled in (sandbox_run()), or -errno. */
int upload_run(const struct upload_job *j, struct sandbox_result *res)
{
	char buf[8192], *argv[UPLOAD_ARGS_MAX];
	struct exec_arg x = { argv, j->env };
	struct sandbox_limits l = { .uid = j->uid, .gid = j->gid, .cpu_seconds = j->timeout_ms / 1000 + 1,
				    .timeout_ms = j->timeout_ms, .output_max = UPLOAD_OUTPUT_MAX, .exec = true };
	int r = upload_argv(j->command, &j->n, buf, sizeof(buf), argv);

	if (r < 0)
		return r;
	l.root_fd = upload_text_fd(j->json ? j->json : "{}");
	if (l.root_fd < 0)
		return l.root_fd;
	r = sandbox_run(&l, j->corefd, exec_command, &x, res);
	fd_close(&l.root_fd);
	return r;
}

/* Marks the core still to be sent: attempts made, and when to try next (epoch seconds). 0 or -errno. */
int upload_mark(int fd, unsigned attempts, uint64_t next)
{
	char v[64];
	int n = snprintf(v, sizeof(v), "pending %u %" PRIu64, attempts, next);

	return fsetxattr(fd, UPLOAD_XATTR, v, (size_t)n, 0) < 0 ? -errno : 0;
}

/* Whether the core is still to be sent: 1 with its attempts and next try, 0 when not, or -errno. */
int upload_pending(int fd, unsigned *attempts, uint64_t *next)
{
	char v[64];
	ssize_t n = fgetxattr(fd, UPLOAD_XATTR, v, sizeof(v) - 1);

	if (n < 0)
		return errno == ENODATA ? 0 : -errno;
	v[n] = '\0';
	return sscanf(v, "pending %u %" SCNu64, attempts, next) == 2 ? 1 : 0;
}

int upload_clear(int fd)
{
	return fremovexattr(fd, UPLOAD_XATTR) < 0 && errno != ENODATA ? -errno : 0;
}

/* Seconds to wait after the attempts-th failure: a minute, doubled each time, at most a day. */
uint64_t upload_backoff(unsigned attempts)
{
	uint64_t s = BACKOFF_FIRST;

	for (unsigned i = 1; i < attempts && s < BACKOFF_MAX; i++)
		s *= 2;
	return s < BACKOFF_MAX ? s : BACKOFF_MAX;
}
