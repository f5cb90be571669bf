/*
 * pattern.c: the lines coresink writes into kernel.core_pattern. Pipe mode's "|HANDLER %P ..." works on every kernel
 * and is what the sysctl.d drop-in holds, so that no boot, no 'sysctl --system' and no kernel booted back to an
 * older one can leave the kernel writing cores to a file named "@@...". Socket mode's "@@SOCKET" is set only live,
 * by --set-mode socket (coresink.socket's start, and 'make enable' where the socket is active), and only where this
 * kernel serves it (sockcap.c); --set-mode pipe (the socket's stop) gives pipe mode back.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "intake.h"
#include "pattern.h"
#include "config.h"

/* The pipe line for the handler at handler (this very binary where NULL), in line. 0, or an exit code, said. */
static int pipe_line(char *line, size_t size, const char *config, const char *handler)
{
	char self[PATH_MAX], conf[PATH_MAX];
	int len;

	if (handler) {
		if (handler[0] != '/' || strlen(handler) >= sizeof(self))
			return fail_code(EXIT_USAGE, "--handler needs an absolute path");
		strcpy(self, handler);
	} else {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n < 0)
			return perror("coresink: /proc/self/exe"), EXIT_SYSTEM;
		self[n] = '\0';
	}
	if (config && !realpath(config, conf)) {
		if (config[0] != '/')
			return fail_code(EXIT_USAGE, "%s: %s", config, strerror(errno));
		(void) snprintf(conf, sizeof(conf), "%s", config);
	}
	if (!kargs_pattern_safe(self) || (config && !kargs_pattern_safe(conf)))
		return fail_code(EXIT_USAGE, "paths in core_pattern cannot hold blanks, '%%' or '|'");
	len = snprintf(line, size, "|%s%s%s %s", self, config ? " --config " : "", config ? conf : "",
		       KARGS_SPECIFIERS);
	if (len < 0 || (size_t)len >= size || len > CORE_PATTERN_MAX)
		return fail_code(EXIT_USAGE, "pattern longer than %d bytes: %s", CORE_PATTERN_MAX, line);
	return 0;
}

/* "@@" and Socket= of the configuration, in line. 0, or an exit code, said. */
static int socket_line(char *line, size_t size, const char *config, bool named, char *socket, size_t socket_size)
{
	struct config c;
	struct diag d = { 0 };
	int len;

	config_read(&c, config, named, &d);
	diag_print(&d, stderr, "coresink: ");
	len = snprintf(line, size, "@@%s", c.socket);
	if (len < 0 || (size_t)len >= size || len > CORE_PATTERN_MAX)
		return fail_code(EXIT_USAGE, "pattern longer than %d bytes: @@%s", CORE_PATTERN_MAX, c.socket);
	if (socket)
		(void) snprintf(socket, socket_size, "%s", c.socket);
	return 0;
}

/* Whether this kernel serves "@@"; where not, why, with its release, in why. As root, the kernel is asked (sockcap). */
static bool kernel_serves(char *why, size_t size)
{
	struct sockcap k;
	const char *no;

	sockcap_probe(&k, geteuid() == 0);
	if (sockcap_serves(&k, &no))
		return true;
	(void) snprintf(why, size, "Linux %u.%u: %s", k.major, k.minor, no);
	return false;
}

/*
 * Prints the line for kernel.core_pattern that runs this very binary, or the one at handler (where it will be
 * installed, for the sysctl.d drop-in the build generates).
 */
int pattern_print_pipe(const char *config, const char *handler)
{
	char line[CORE_PATTERN_MAX + 2];
	int r = pipe_line(line, sizeof(line), config, handler);

	if (r == 0)
		printf("%s\n", line);
	return r;
}

/*
 * Prints the line for kernel.core_pattern that sends crashes to the socket of coresink --serve: "@@" asks the
 * kernel for the request/ack exchange (Linux 6.17), which lets the server refuse a core before it is dumped. Where
 * this kernel cannot serve it, prints nothing and says why: EXIT_WRONG.
 */
int pattern_print_socket(const char *config, bool named)
{
	char line[CORE_PATTERN_MAX + 2], why[256];
	int r = socket_line(line, sizeof(line), config, named, NULL, 0);

	if (r != 0)
		return r;
	if (!kernel_serves(why, sizeof(why)))
		return fail_code(EXIT_WRONG, "no socket mode: %s", why);
	printf("%s\n", line);
	return 0;
}

/*
 * Whether this runs in the host's namespaces, where kernel.core_pattern is this system's: the kernel's own threads
 * (kthreadd, pid 2) are seen only from the host's pid namespace, as activate.sh checks.
 */
static bool on_host(void)
{
	char *comm = proc_read(AT_FDCWD, "/proc/2/comm", NULL);
	bool host = comm && strcmp(comm, "kthreadd\n") == 0;

	free(comm);
	return host;
}

/* Sets pattern live; says so, or why it could not. 0 or EXIT_SYSTEM. */
static int set_live(const char *pattern)
{
	int r = core_pattern_set(pattern);

	if (r < 0)
		return fail_code(EXIT_SYSTEM, "cannot set kernel.core_pattern=%s: %s", pattern, strerror(-r));
	return 0;
}

/*
 * Socket mode where asked and the kernel serves it, pipe mode otherwise, but only over a pattern of coresink's own:
 * another handler's is left alone. Prints one line, the mode the kernel is in and why ("socket mode (PATH)",
 * "pipe mode (WHY)", "left alone (...)"). 0, or EXIT_SYSTEM where the pattern could not be written.
 */
int pattern_set_mode(const char *config, bool named, bool socket)
{
	char pipe[CORE_PATTERN_MAX + 2], sock[CORE_PATTERN_MAX + 2], live[CORE_PATTERN_MAX + 2], path[256];
	char why[512] = "asked";
	struct stat st;
	size_t plen;
	int r;

	r = pipe_line(pipe, sizeof(pipe), named ? config : NULL, NULL);
	if (r == 0)
		r = socket_line(sock, sizeof(sock), config, named, path, sizeof(path));
	if (r != 0)
		return r;
	if (!on_host())
		return printf("left alone (in a container: kernel.core_pattern is the host's)\n"), 0;
	if ((r = core_pattern_get(live, sizeof(live))) < 0)
		return fail_code(EXIT_SYSTEM, "kernel.core_pattern: %s", strerror(-r));
	/* Ours: this handler's pipe line, whatever its options, or this configuration's socket. */
	plen = strcspn(pipe, " ");
	if (strcmp(live, sock) != 0 && (strncmp(live, pipe, plen) != 0 || live[plen] != ' '))
		return printf("left alone (kernel.core_pattern is not coresink's: %s)\n", live), 0;
	if (socket && kernel_serves(why, sizeof(why))) {
		if (stat(path, &st) < 0 || !S_ISSOCK(st.st_mode))
			(void) snprintf(why, sizeof(why), "nothing listens on %s", path);
		else if (core_pattern_set(sock) == 0)
			return printf("socket mode (%s)\n", path), 0;
		else
			(void) snprintf(why, sizeof(why), "the kernel did not keep kernel.core_pattern=%s", sock);
	}
	/* A pipe line of ours keeps its options; only our socket's line is replaced. */
	if (strcmp(live, sock) == 0 && (r = set_live(pipe)) != 0)
		return r;
	printf("pipe mode (%s)\n", why);
	return 0;
}
