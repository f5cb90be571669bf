/* sandbox.h: a function run in a forked child that can do little harm, with a deadline and a bounded output. */
#ifndef CORESINK_SANDBOX_H
#define CORESINK_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sandbox_limits {
	uid_t uid;                /* the child runs as uid/gid; as root (0) only without capabilities */
	gid_t gid;
	uint64_t address_space;   /* RLIMIT_AS: what it may map, files included */
	uint64_t data;            /* RLIMIT_DATA: what it may allocate */
	unsigned cpu_seconds;     /* RLIMIT_CPU */
	unsigned timeout_ms;      /* wall time, after which it is killed */
	size_t output_max;        /* bytes of its output kept; past them it is killed */
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
	int code;                 /* its exit status or signal */
	char *out;                /* what it wrote (malloc'd, NUL-terminated), len bytes */
	size_t len;
	uint64_t elapsed_us;
};

typedef int (*sandbox_fn)(int fd, int out, void *arg);

int sandbox_run(const struct sandbox_limits *l, int fd, sandbox_fn fn, void *arg, struct sandbox_result *res);
void sandbox_result_free(struct sandbox_result *res);
const char *sandbox_end_to_string(enum sandbox_end e);
bool sandbox_limits_memory(void);

#endif
