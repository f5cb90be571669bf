/*
 * coresink.c: the command line. Kernel mode (capture.c) is the kernel.core_pattern pipe helper: it stores the core
 * arriving on stdin in Directory, in chunks and within the limits, and logs one journal entry per crash. --serve
 * (serve.c) does the same for every crash that comes through the kernel's coredump socket; --net-door runs, for it,
 * what needs the network (netdoor.c).
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

#include "admin.h"
#include "base.h"
#include "fetchstep.h"
#include "flow.h"
#include "intake.h"
#include "pattern.h"
#include "config.h"
#include "sandbox.h"
#include "serve.h"

#ifndef VERSION
#define VERSION "0.1"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: coresink [--config FILE] [--handler PATH] --core-pattern [--socket]\n"
		"       coresink [--config FILE] --set-mode socket|pipe\n"
		"       coresink [--config FILE] --serve\n"
		"       coresink [--config FILE] --net-door\n"
		"       coresink [--config FILE] --retry-uploads [--all]\n"
		"       coresink [--config FILE] --check-config [exe=PATH] [unit=UNIT] [user=USER] [signal=SIG] ...\n"
		"       coresink --summary [--json] [-D DIR] [--since @SECONDS]\n"
		"       coresink [--config FILE] --retrace [CORE-PATH | MATCH...]\n"
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
		{ "net-door", no_argument, NULL, 'N' },
		{ "retrace", no_argument, NULL, 'T' },
		{ "retry-uploads", no_argument, NULL, 'R' },
		{ "serve", no_argument, NULL, 'S' },
		{ "set-mode", required_argument, NULL, 'M' },
		{ "since", required_argument, NULL, 'i' },
		{ "socket", no_argument, NULL, 's' },
		{ "summary", no_argument, NULL, 'y' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *config = CONFIG_DEFAULT_PATH, *handler = NULL, *journal_dir = NULL, *since = NULL, *set = NULL;
	bool named = false, socket = false, all = false, json = false;
	int mode = 0, ch;

	/* The fetch step (DebuginfodURLs=), run by the handler as its own user in its own sandbox: nothing else here. */
	if (argc > 1 && strcmp(argv[1], "--fetch-debuginfo") == 0)
		return fetch_step_main(argc - 2, argv + 2);
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
		case 'M':
			set = optarg;
			mode = ch;
			break;
		case 'k':
		case 'N':
		case 'p':
		case 'R':
		case 'S':
		case 'T':
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
		return pattern_print_socket(config, named);
	if (mode == 'p' && optind == argc)
		return pattern_print_pipe(named ? config : NULL, handler);
	if (mode == 'M' && optind == argc && (strcmp(set, "socket") == 0 || strcmp(set, "pipe") == 0))
		return pattern_set_mode(config, named, strcmp(set, "socket") == 0);
	if (mode == 'S' && optind == argc)
		return serve_main(config, named);
	/* coresink-net@.service: one request of socket mode's server on the connection systemd accepted (fd 0). */
	if (mode == 'N' && optind == argc)
		return netdoor_serve(config, named, STDIN_FILENO);
	if (mode == 'R' && optind == argc)
		return ship_retry(config, named, all) < 0 ? EXIT_SYSTEM : 0;
	if (mode == 'k')
		return check_config(config, named, argc - optind, argv + optind);
	if (mode == 'y' && optind == argc)
		return summary_main(journal_dir, since, json);
	if (mode == 'T')
		return retrace_main(config, named, &(struct selection) { .directory = journal_dir }, argc - optind,
				    argv + optind);
	/* The crash is logged whatever happens; the kernel only learns whether a core was kept. */
	if (mode == 0 && optind < argc)
		return capture_pipe(config, named, argc - optind, argv + optind) < 0 ? EXIT_SYSTEM : 0;
	usage(stderr);
	return EXIT_USAGE;
}
