/* kargs.h: the arguments the kernel expands from kernel.core_pattern. */
#ifndef CORESINK_KARGS_H
#define CORESINK_KARGS_H

#include <stdint.h>
#include <sys/types.h>

#include "diag.h"

/* The specifiers, in the order coresink --core-pattern writes them. */
#define KARGS_SPECIFIERS "%P %u %g %s %t %c %h %e %d %F"
#define KARGS_COUNT 10

struct kargs {
	pid_t pid;            /* %P: in the initial pid namespace */
	uid_t uid;            /* %u */
	gid_t gid;            /* %g */
	int signal;           /* %s */
	uint64_t time;        /* %t: seconds since the epoch */
	uint64_t rlimit;      /* %c: RLIMIT_CORE, soft; UINT64_MAX is unlimited */
	const char *hostname; /* %h: raw, untrusted */
	const char *comm;     /* %e: raw, untrusted */
	int dumpmode;         /* %d: 1 dumpable by its owner, 2 root only (suid_dumpable) */
	int pidfd;            /* %F: fd 3 on kernels >= 6.16, -1 otherwise */
};

int kargs_parse(int argc, char *const *argv, struct kargs *k, struct diag *d);

#endif
