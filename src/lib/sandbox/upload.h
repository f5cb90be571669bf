/*
 * upload.h: ExecUpload=, the command that takes a stored core elsewhere (rclone to an object store, scp, curl): its
 * arguments with the crash's specifiers, and its run as an unprivileged user with a deadline, the core on its
 * standard input, the crash's fields in its environment and as one JSON object on fd 3.
 */
#ifndef CORESINK_UPLOAD_H
#define CORESINK_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sandbox.h"

#define UPLOAD_ARGS_MAX 64
#define UPLOAD_OUTPUT_MAX 4096
#define UPLOAD_USER "coresink-upload"     /* UploadUser= by default: make install creates it */
#define UPLOAD_XATTR "user.coresink.upload"   /* "pending ATTEMPTS NEXT_EPOCH" on a core still to be sent */

/* What the specifiers expand to: each a value safe as one word of a path (name_sanitize()'s bytes). */
struct upload_names {
	const char *file;       /* %f: the stored file's name */
	const char *dir;        /* %d: the directory */
	const char *comm;       /* %e */
	const char *host;       /* %H: this machine's host name */
	pid_t pid;              /* %P */
	uid_t uid;              /* %u */
	uint64_t time;          /* %t: the crash, seconds since the epoch */
	const char *pod_namespace; /* %N: its pod's Kubernetes namespace, "" when none */
	const char *pod_name;   /* %O: its pod's name, "" when none */
	const char *labels;     /* %{KEY}: "KEY=VALUE" words, the container's own labels before its pod's; or NULL */
};

struct upload_job {
	const char *command;    /* ExecUpload= */
	struct upload_names n;
	int corefd;             /* the stored core, read-only: its standard input */
	char *const *env;       /* NAME=value, NULL-terminated */
	const char *json;       /* fd 3 */
	uid_t uid;              /* UploadUser= */
	gid_t gid;
	unsigned timeout_ms;
};

#define UPLOAD_LABELS_XATTR "user.coresink.upload_labels"   /* the labels the command names, for %{KEY} in a retry */

int upload_argv(const char *command, const struct upload_names *n, char *buf, size_t len, char **argv);
void upload_labels(const char *command, const char *labels, const char *pod_labels, char *out, size_t len);
int upload_text_fd(const char *text);
int upload_ids(const char *user, uid_t *uid, gid_t *gid);
int upload_run(const struct upload_job *j, struct sandbox_result *res);
int upload_mark(int fd, unsigned attempts, uint64_t next);
int upload_pending(int fd, unsigned *attempts, uint64_t *next);
int upload_clear(int fd);
uint64_t upload_backoff(unsigned attempts);

#endif
