/* kargs.h: the arguments the kernel expands from kernel.core_pattern. */
#ifndef CORESINK_KARGS_H
#define CORESINK_KARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base.h"

/* The specifiers, in the order coresink --core-pattern writes them: one slot each, named below. */
#define KARGS_SPECIFIERS "%P %u %g %s %t %c %h %e %d %F %I"

/*
 * The argument slots, as systemd's META_ARGV_*. The first _KARGS_REQUIRED are there on every kernel coresink runs
 * on; %F (6.16) expands to an empty argument where the kernel does not know it, and a pattern installed by an older
 * coresink ends before %I.
 */
enum karg {
	KARG_PID,        /* %P */
	KARG_UID,        /* %u */
	KARG_GID,        /* %g */
	KARG_SIGNAL,     /* %s */
	KARG_TIME,       /* %t */
	KARG_RLIMIT,     /* %c */
	KARG_HOSTNAME,   /* %h */
	KARG_COMM,       /* %e */
	KARG_DUMPMODE,   /* %d */
	_KARGS_REQUIRED,
	KARG_PIDFD = _KARGS_REQUIRED, /* %F */
	KARG_TID,        /* %I */
	_KARGS_MAX
};

/* What %d says: the kernel's suid_dumpable modes (include/linux/sched/coredump.h). */
enum suid_dump {
	SUID_DUMP_DISABLE = 0,   /* no core at all: the handler never sees it */
	SUID_DUMP_USER = 1,      /* dumpable by its owner */
	SUID_DUMP_ROOT = 2,      /* changed credentials: only root may see the core (fs.suid_dumpable=2) */
};

struct kargs {
	pid_t pid;            /* %P: in the initial pid namespace */
	uid_t uid;            /* %u */
	gid_t gid;            /* %g */
	int signal;           /* %s */
	uint64_t time;        /* %t: seconds since the epoch */
	uint64_t rlimit;      /* %c: RLIMIT_CORE, soft; UINT64_MAX is unlimited */
	const char *hostname; /* %h: raw, untrusted */
	const char *hostname_why; /* socket mode: why there is no host name, or NULL */
	const char *comm;     /* %e: raw, untrusted */
	enum suid_dump dumpmode; /* %d */
	int pidfd;            /* %F: fd 3 on kernels >= 6.16, -1 otherwise */
	pid_t tid;            /* %I: the thread that crashed, in the initial pid namespace; 0 when unknown */
};

int kargs_parse(int argc, char *const *argv, struct kargs *k, struct diag *d);
bool kargs_pattern_safe(const char *path);

#endif
