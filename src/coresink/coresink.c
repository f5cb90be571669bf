/*
 * coresink.c: the command line. Kernel mode (capture.c) is the kernel.core_pattern pipe helper: it stores the core
 * arriving on stdin in Directory, in chunks and within the limits, and logs one journal entry per crash. --serve
 * (serve.c) does the same for every crash that comes through the kernel's coredump socket.
 *
 * Exit codes: 0 stored (possibly truncated) or done, 1 configuration errors (--check-config),
 * 100 usage, 111 system failure (nothing stored).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "checkconfig.h"
#include "flow.h"
#include "intake.h"
#include "policy.h"
#include "serve.h"
#include "summary.h"

#define CORE_PATTERN_MAX 127   /* the kernel keeps 128 bytes with the NUL */

#ifndef VERSION
#define VERSION "0.1"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: coresink [--config FILE] [--handler PATH] --core-pattern [--socket]\n"
		"       coresink [--config FILE] --serve\n"
		"       coresink [--config FILE] --retry-uploads [--all]\n"
		"       coresink [--config FILE] --check-config [exe=PATH] [unit=UNIT] [user=USER] [signal=SIG] ...\n"
		"       coresink --summary [--json] [-D DIR] [--since @SECONDS]\n"
		"       coresink [--config FILE] PID UID GID SIGNAL TIME RLIMIT HOSTNAME COMM DUMPMODE [PIDFD [TID]]\n"
		"       coresink --help | --version\n");
}

/*
 * The kernel starts the helper with only fd 0 open: the next open() would silently become stdout. Give fds 0-2
 * something harmless, make sure a crash of the helper itself cannot recurse into a core, and keep files private.
 */
static void make_safe(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			(void) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
	(void) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	umask(077);
}

/*
 * Prints the line for kernel.core_pattern that runs this very binary, or the one at handler (where it will be
 * installed, for the sysctl.d drop-in the build generates).
 */
static int print_core_pattern(const char *config, const char *handler)
{
	char self[PATH_MAX], conf[PATH_MAX], line[256];
	int len;

	if (handler) {
		if (handler[0] != '/' || strlen(handler) >= sizeof(self))
			return fprintf(stderr, "coresink: --handler needs an absolute path\n"), EXIT_USAGE;
		strcpy(self, handler);
	} else {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n < 0)
			return perror("coresink: /proc/self/exe"), EXIT_SYSTEM;
		self[n] = '\0';
	}
	if (config && !realpath(config, conf)) {
		if (config[0] != '/')
			return fprintf(stderr, "coresink: %s: %s\n", config, strerror(errno)), EXIT_USAGE;
		(void) snprintf(conf, sizeof(conf), "%s", config);
	}
	if (!kargs_pattern_safe(self) || (config && !kargs_pattern_safe(conf)))
		return fprintf(stderr, "coresink: paths in core_pattern cannot hold blanks, '%%' or '|'\n"), EXIT_USAGE;
	len = snprintf(line, sizeof(line), "|%s%s%s %s", self, config ? " --config " : "", config ? conf : "",
		       KARGS_SPECIFIERS);
	if (len < 0 || len > CORE_PATTERN_MAX)
		return fprintf(stderr, "coresink: pattern longer than %d bytes: %s\n", CORE_PATTERN_MAX, line),
		       EXIT_USAGE;
	printf("%s\n", line);
	return 0;
}

/*
 * Prints the line for kernel.core_pattern that sends crashes to the socket of coresink --serve: "@@" asks the
 * kernel for the request/ack exchange (Linux 6.17), which lets the server refuse a core before it is dumped.
 */
static int print_socket_pattern(const char *config, bool named)
{
	struct config c;
	struct diag d = { 0 };
	char line[CORE_PATTERN_MAX + 2];
	int len;

	config_read(&c, config, named, &d);
	diag_print(&d, stderr, "coresink: ");
	len = snprintf(line, sizeof(line), "@@%s", c.socket);
	if (len < 0 || len > CORE_PATTERN_MAX)
		return fprintf(stderr, "coresink: pattern longer than %d bytes: %s\n", CORE_PATTERN_MAX, line),
		       EXIT_USAGE;
	printf("%s\n", line);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "check-config", no_argument, NULL, 'k' },
		{ "config", required_argument, NULL, 'c' },
		{ "core-pattern", no_argument, NULL, 'p' },
		{ "directory", required_argument, NULL, 'D' },
		{ "handler", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "retry-uploads", no_argument, NULL, 'R' },
		{ "serve", no_argument, NULL, 'S' },
		{ "since", required_argument, NULL, 'i' },
		{ "socket", no_argument, NULL, 's' },
		{ "summary", no_argument, NULL, 'y' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *config = CONFIG_DEFAULT_PATH, *handler = NULL, *journal_dir = NULL, *since = NULL;
	bool named = false, socket = false, all = false, json = false;
	int mode = 0, ch;

	make_safe();
	/* "+": stop at the first operand, so that a hostile comm such as "--check-config" stays an operand. */
	while ((ch = getopt_long(argc, argv, "+c:D:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			all = true;
			break;
		case 'c':
			config = optarg;
			named = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'D':
			journal_dir = optarg;
			break;
		case 'H':
			handler = optarg;
			break;
		case 'i':
			since = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 's':
			socket = true;
			break;
		case 'k':
		case 'p':
		case 'R':
		case 'S':
		case 'y':
			mode = ch;
			break;
		case 'V':
			printf("coresink %s\n", VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (mode == 'p' && optind == argc && socket)
		return print_socket_pattern(config, named);
	if (mode == 'p' && optind == argc)
		return print_core_pattern(named ? config : NULL, handler);
	if (mode == 'S' && optind == argc)
		return serve_main(config, named);
	if (mode == 'R' && optind == argc)
		return ship_retry(config, named, all) < 0 ? EXIT_SYSTEM : 0;
	if (mode == 'k')
		return check_config(config, named, argc - optind, argv + optind);
	if (mode == 'y' && optind == argc)
		return summary_main(journal_dir, since, json);
	/* The crash is logged whatever happens; the kernel only learns whether a core was kept. */
	if (mode == 0 && optind < argc)
		return capture_pipe(config, named, argc - optind, argv + optind) < 0 ? EXIT_SYSTEM : 0;
	usage(stderr);
	return EXIT_USAGE;
}
