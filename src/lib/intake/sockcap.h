/* sockcap.h: whether this kernel serves the coredump socket's request protocol ("@@", Linux 6.17). */
#ifndef CORESINK_SOCKCAP_H
#define CORESINK_SOCKCAP_H

#include <stdbool.h>

/* What the kernel did when asked. Each fact is 1 (yes), 0 (a definite no) or -errno (could not be asked). */
struct sockcap {
	unsigned int major, minor;  /* uname's release; 0.0 where it cannot be read */
	int pidfd_coredump;         /* a pidfd answers PIDFD_INFO_COREDUMP (6.16) */
	int core_modes;             /* kernel.core_modes lists the socket; -ENOENT where the file is absent */
	int refuses_relative;       /* "@@" with a relative path is refused (6.17); 0: taken as a file name */
};

/* The relative pattern the probe writes: refused by a kernel that knows "@@", a file name to one that does not. */
#define SOCKCAP_PROBE_PATTERN "@@coresink-probe/not-a-socket"

int sockcap_release(const char *release, unsigned int *major, unsigned int *minor);
void sockcap_probe(struct sockcap *c, bool try_pattern);
bool sockcap_serves(const struct sockcap *c, const char **why);

#endif
