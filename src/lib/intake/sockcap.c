/*
 * sockcap.c: whether this kernel serves the coredump socket's request protocol ("@@PATH", Linux 6.17). Writing
 * "@@PATH" to kernel.core_pattern proves nothing: Linux 6.1 and 6.12 take it as a file name, relative to the
 * crashing process's directory, and every crash after it is lost. So the answer comes from what the kernel does:
 * a pidfd answers PIDFD_INFO_COREDUMP (6.16), "@@" with a relative path is refused (6.17.5 and 6.18 refuse it on
 * write, 6.17.0 to 6.17.4 on the read that follows), and kernel.core_modes, where the kernel has it, lists the
 * socket. The release must say 6.17 or later too, since 6.16's "@" socket refuses every "@@" alike. Probing and
 * deciding are apart: sockcap_serves() is a pure function of the facts, tested on each kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base.h"
#include "corepattern.h"
#include "procfs.h"
#include "sockcap.h"
#include "uapi.h"

#define CORE_MODES_PATH "/proc/sys/kernel/core_modes"

/* The first release with the request protocol ("@@", COREDUMP_REQ/ACK). */
#define SOCKCAP_MAJOR 6
#define SOCKCAP_MINOR 17

/* major and minor of a release string such as "6.12.57+deb13-amd64". 0 or -EINVAL. */
int sockcap_release(const char *release, unsigned int *major, unsigned int *minor)
{
	if (!release || sscanf(release, "%u.%u", major, minor) != 2)
		return -EINVAL;
	return 0;
}

/* Whether a pidfd of this process answers PIDFD_INFO_COREDUMP: 1, 0 (no such ioctl or bit), or -errno. */
static int probe_pidfd(void)
{
	struct pidfd_info info = { .mask = PIDFD_INFO_COREDUMP };
	_cleanup_close_ int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd < 0)
		return errno == ENOSYS ? 0 : -errno;
	if (ioctl(fd, PIDFD_GET_INFO, &info) < 0)
		return errno == ENOTTY || errno == EINVAL ? 0 : -errno;
	return !!(info.mask & PIDFD_INFO_COREDUMP);
}

/* Whether kernel.core_modes lists the socket ("socket"; "unix" in its first form): 1, 0, or -errno. */
static int probe_core_modes(void)
{
	char *modes = proc_read(AT_FDCWD, CORE_MODES_PATH, NULL);
	int r = 0;

	if (!modes)
		return -errno;
	for (char *save = NULL, *m = strtok_r(modes, "\n ", &save); m && !r; m = strtok_r(NULL, "\n ", &save))
		r = strcmp(m, "socket") == 0 || strcmp(m, "unix") == 0;
	free(modes);
	return r;
}

/*
 * Whether the kernel refuses SOCKCAP_PROBE_PATTERN: 1 refused, 0 kept (a file name; the pattern that was there is
 * put back at once), -errno where it cannot be written (not root, a container's read-only /proc/sys).
 */
static int probe_relative(void)
{
	char old[CORE_PATTERN_MAX + 2];
	int r = core_pattern_get(old, sizeof(old));

	if (r < 0)
		return r;
	r = core_pattern_set(SOCKCAP_PROBE_PATTERN);
	if (r == -EINVAL)
		return 1;
	if (r < 0)
		return r;
	(void) core_pattern_set(old);
	return 0;
}

/*
 * Gathers the facts. The pattern is tried only where try_pattern is set and the other facts leave socket mode
 * possible: an older kernel never sees the probe, and a kernel that refuses it keeps its pattern untouched.
 */
void sockcap_probe(struct sockcap *c, bool try_pattern)
{
	struct sockcap refused;
	struct utsname u;

	*c = (struct sockcap) { .refuses_relative = -ENODATA };
	if (uname(&u) == 0)
		(void) sockcap_release(u.release, &c->major, &c->minor);
	c->pidfd_coredump = probe_pidfd();
	c->core_modes = probe_core_modes();
	refused = *c;
	refused.refuses_relative = 1;
	if (try_pattern && sockcap_serves(&refused, NULL))
		c->refuses_relative = probe_relative();
}

/*
 * Whether the facts say the kernel serves "@@"; where not, why (a sentence for the admin). Any definite no wins; the
 * release must be 6.17 or later; and at least one thing the kernel did must say yes, not the release alone.
 */
bool sockcap_serves(const struct sockcap *c, const char **why)
{
	const char *no = NULL;

	if (c->refuses_relative == 0)
		no = "this kernel takes \"@@...\" in kernel.core_pattern as a file name, not a socket";
	else if (c->pidfd_coredump == 0)
		no = "this kernel's pidfds do not answer PIDFD_INFO_COREDUMP (Linux 6.16): it has no coredump socket";
	else if (c->core_modes == 0)
		no = "kernel.core_modes lists no socket mode";
	else if (c->major < SOCKCAP_MAJOR || (c->major == SOCKCAP_MAJOR && c->minor < SOCKCAP_MINOR))
		no = "the coredump socket's request protocol (\"@@\") needs Linux 6.17";
	else if (c->pidfd_coredump < 0 && c->refuses_relative < 0)
		no = "the kernel could not be asked whether it serves the coredump socket";
	if (why)
		*why = no;
	return !no;
}
