/* inflight.h: the captures in progress, as the ledger of the core directory records them (inflight.c). */
#ifndef CORESINK_ADMIN_INFLIGHT_H
#define CORESINK_ADMIN_INFLIGHT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define INFLIGHT_SHOWN_MAX 64

/* One crash a live handler has in hand. */
struct capture_now {
	pid_t pid;            /* the crashed process */
	pid_t handler;        /* the handler: the pipe's, or socket mode's process for the crash */
	uid_t uid;
	gid_t gid;
	int sig;
	uint64_t usec;        /* when it crashed (the kernel's %t, to the second) */
	uint64_t bytes;       /* what its capture holds so far */
	bool socket;          /* socket mode's */
	bool stored;          /* its core is published; its analysis and entry are still to come */
	char comm[16];        /* as the kernel gave it (%e): anything but NUL */
	char exe[PATH_MAX];   /* the process's executable while it still is, and is the one named; "" unknown */
};

struct captures_now {
	struct capture_now c[INFLIGHT_SHOWN_MAX];
	size_t n;
};

int captures_now(int dirfd, struct captures_now *v);
const char *capture_state(const struct capture_now *c);

#endif
