/* sandbox.h: a function run in a forked child that can do little harm, with a deadline and a bounded output. */
#ifndef CORESINK_SANDBOX_H
#define CORESINK_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The child's fds: what it reads, and the pipe its output goes back in. */
#define SANDBOX_IN_FD 3
#define SANDBOX_OUT_FD 4
/* The root it is to see instead of the file system's, when it is given one; closed once it is entered. */
#define SANDBOX_ROOT_FD 5
/* The files it is handed besides (the modules the crashed process had mapped), from here on in their order. */
#define SANDBOX_FIRST_FD 6
#define SANDBOX_FDS_MAX 1024

/* What confined the child (confine.c), as it reports it. */
enum {
	SANDBOX_UNPRIVILEGED = 1 << 0,   /* an unprivileged uid, no capabilities */
	SANDBOX_NAMESPACES = 1 << 1,     /* its own user, mount, network and IPC namespaces */
	SANDBOX_READ_ONLY = 1 << 2,      /* the file system read-only, noexec, /proc/sys hidden */
	SANDBOX_SECCOMP = 1 << 3,        /* the system call filter */
	SANDBOX_ROOT = 1 << 4,           /* the root it was given: nothing outside it can be named */
};

struct sandbox_limits {
	uid_t uid;                /* the child runs as uid/gid, never as root (a non-root caller stays who it is) */
	gid_t gid;
	uint64_t address_space;   /* RLIMIT_AS: what it may map, files included */
	uint64_t data;            /* RLIMIT_DATA: what it may allocate */
	unsigned cpu_seconds;     /* RLIMIT_CPU */
	unsigned timeout_ms;      /* wall time, after which it is killed */
	size_t output_max;        /* bytes of its output kept; past them it is killed */
	int root_fd;              /* a directory to make its root (chroot), or -1: the file system's, read-only */
	const int *fds;           /* n_fds more to hand it, read-only, at SANDBOX_FIRST_FD on: what it may read */
	unsigned n_fds;           /* besides its input and beneath its root (at most SANDBOX_FDS_MAX) */
	bool watch_exit;          /* its end is its exit, seen through a pidfd, not its pipe's end alone (what it
				     leaves holding the pipe does not keep us waiting) */
	bool exec;                /* fn execs a program: ids, capabilities and no_new_privs only (confine_exec), no
				     memory or file-size limits, root_fd passed on as fd 5 as it is; killed as a group */
};

enum sandbox_end {
	SANDBOX_DONE,             /* exited 0 */
	SANDBOX_FAILED,           /* exited with another status */
	SANDBOX_KILLED,           /* died of a signal it got itself (the CPU or memory limits, a crash) */
	SANDBOX_TIMEOUT,          /* killed at the deadline */
	SANDBOX_TOO_LONG,         /* killed when its output passed output_max */
};

struct sandbox_result {
	enum sandbox_end end;
	unsigned confined;        /* SANDBOX_* the child reported applied; 0 when it never got that far */
	int code;                 /* its exit status or signal */
	char *out;                /* what it wrote (malloc'd, NUL-terminated), len bytes */
	size_t len;
	uint64_t elapsed_us;
};

/* A child started and not yet waited for (sandbox_start, sandbox_end). */
struct sandbox_child {
	pid_t pid;
	int rfd;                  /* its output */
	int pidfd;                /* its exit, where the kernel gives one (-1: the pipe's end alone tells) */
	size_t max;
	uint64_t start, deadline; /* clock_us() */
};

typedef int (*sandbox_fn)(int fd, int out, void *arg);

int sandbox_start(const struct sandbox_limits *l, int fd, sandbox_fn fn, void *arg, struct sandbox_child *c);
int sandbox_end(struct sandbox_child *c, struct sandbox_result *res);
int sandbox_run(const struct sandbox_limits *l, int fd, sandbox_fn fn, void *arg, struct sandbox_result *res);
void sandbox_result_free(struct sandbox_result *res);
const char *sandbox_end_to_string(enum sandbox_end e);
void sandbox_ending(const struct sandbox_result *res, char *buf, size_t len);
void sandbox_confinement_text(unsigned confined, char *buf, size_t len);
bool sandbox_limits_memory(void);

#endif
