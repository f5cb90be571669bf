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
#include <limits.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "fetchstep.h"
#include "flow.h"
#include "intake.h"
#include "notify.h"
#include "pattern.h"
#include "config.h"
#include "sandbox.h"
#include "serve.h"

/* parse()'s word for "done, exit 0" (--help, --version): no exit code of the program's. */
#define EXIT_OK_DONE (-1)

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
		"       coresink --summary [--json] [-D DIR] [--since TIME]\n"
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

/* What the command line said: the options every mode may read. */
struct args {
	const char *config, *handler, *journal_dir, *since, *set;
	bool named, socket, all, json;
};

static int mode_pattern(const struct args *a, int argc, char **argv)
{
	(void) argc, (void) argv;
	return a->socket ? pattern_print_socket(a->config, a->named) :
			   pattern_print_pipe(a->named ? a->config : NULL, a->handler);
}

static int mode_set(const struct args *a, int argc, char **argv)
{
	(void) argc, (void) argv;
	if (strcmp(a->set, "socket") != 0 && strcmp(a->set, "pipe") != 0)
		return usage(stderr), EXIT_USAGE;
	return pattern_set_mode(a->config, a->named, strcmp(a->set, "socket") == 0);
}

static int mode_serve(const struct args *a, int argc, char **argv)
{
	(void) argc, (void) argv;
	return serve_main(a->config, a->named);
}

/* coresink-net@.service: one request of socket mode's server on the connection systemd accepted (fd 0). */
static int mode_net_door(const struct args *a, int argc, char **argv)
{
	(void) argc, (void) argv;
	return netdoor_serve(a->config, a->named, STDIN_FILENO, notify_here);
}

static int mode_retry(const struct args *a, int argc, char **argv)
{
	(void) argc, (void) argv;
	return ship_retry(a->config, a->named, a->all) < 0 ? EXIT_SYSTEM : 0;
}

/*
 * The admin's verbs are coresinkctl's (--check-config, --summary, --retrace): the handler keeps its flags for the
 * scripts and hands them over, with the options they take, to coresinkctl (base/programs.c says where it is). Operands follow "--", so that none is read as an option. Returns only on failure, EXIT_SYSTEM.
 */
static int hand_over(const struct args *a, const char *verb, int argc, char **argv)
{
	char ctl[PATH_MAX];
	const char *v[16 + 1];
	char **all;
	size_t n = 0;
	int r = program_path("coresinkctl", ctl, sizeof(ctl));

	if (r < 0)
		return fail_code(EXIT_SYSTEM, "coresinkctl: %s", strerror(-r));
	v[n++] = ctl;
	if (a->named)
		v[n++] = "--config", v[n++] = a->config;
	if (a->journal_dir)
		v[n++] = "--directory", v[n++] = a->journal_dir;
	if (a->since)
		v[n++] = "--since", v[n++] = a->since;
	if (a->json)
		v[n++] = "--json";
	v[n++] = verb;
	v[n++] = "--";
	all = calloc(n + (size_t)argc + 1, sizeof(*all));
	if (!all)
		return fail_code(EXIT_SYSTEM, "%s", strerror(ENOMEM));
	memcpy(all, v, n * sizeof(*all));
	memcpy(all + n, argv, (size_t)argc * sizeof(*all));
	execv(all[0], all);
	(void) fail_code(0, "%s: %s (the handler's --%s is coresinkctl's %s)", all[0], strerror(errno), verb, verb);
	free(all);
	return EXIT_SYSTEM;
}

static int mode_check(const struct args *a, int argc, char **argv)
{
	return hand_over(a, "check-config", argc, argv);
}

static int mode_summary(const struct args *a, int argc, char **argv)
{
	return hand_over(a, "summary", argc, argv);
}

static int mode_retrace(const struct args *a, int argc, char **argv)
{
	return hand_over(a, "retrace", argc, argv);
}

/* The kernel's pipe helper: the crash is logged whatever happens; the kernel only learns whether a core was kept. */
static int mode_capture(const struct args *a, int argc, char **argv)
{
	char entry[64] = "";
	int r = capture_pipe(a->config, a->named, argc, argv, entry, sizeof(entry));

	/* Its entry is out, the process long let go: who is to hear of the crash is told, by a process of its own. */
	notify_after(a->config, a->named, entry, NULL);
	return r < 0 ? EXIT_SYSTEM : 0;
}

/* The modes: the option that picks one (0: none, the pipe helper), whether it takes operands, and what runs it. */
static const struct mode {
	int letter;
	enum { NO_OPERANDS, OPERANDS, NEEDS_OPERANDS } operands;
	int (*run)(const struct args *a, int argc, char **argv);
} modes[] = {
	{ 'p', NO_OPERANDS, mode_pattern }, { 'M', NO_OPERANDS, mode_set }, { 'S', NO_OPERANDS, mode_serve },
	{ 'N', NO_OPERANDS, mode_net_door }, { 'R', NO_OPERANDS, mode_retry }, { 'k', OPERANDS, mode_check },
	{ 'y', NO_OPERANDS, mode_summary }, { 'T', OPERANDS, mode_retrace }, { 0, NEEDS_OPERANDS, mode_capture },
};

/* Reads the options into a and the mode's letter into *mode. 0, or an exit code (also for --help, --version). */
static int parse(int argc, char **argv, struct args *a, int *mode)
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
	int ch;

	/* "+": stop at the first operand, so that a hostile comm such as "--check-config" stays an operand. */
	while ((ch = getopt_long(argc, argv, "+c:D:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'a': a->all = true; break;
		case 'c': a->config = optarg, a->named = true; break;
		case 'h': usage(stdout); return EXIT_OK_DONE;
		case 'D': a->journal_dir = optarg; break;
		case 'H': a->handler = optarg; break;
		case 'i': a->since = optarg; break;
		case 'j': a->json = true; break;
		case 's': a->socket = true; break;
		case 'M': a->set = optarg, *mode = ch; break;
		case 'k': case 'N': case 'p': case 'R': case 'S': case 'T': case 'y': *mode = ch; break;
		case 'V': printf("coresink %s\n", VERSION); return EXIT_OK_DONE;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = { .config = CONFIG_DEFAULT_PATH };
	int mode = 0, r;

	/* The fetch step (DebuginfodURLs=), run by the handler as its own user in its own sandbox: nothing else here. */
	if (argc > 1 && strcmp(argv[1], "--fetch-debuginfo") == 0)
		return fetch_step_main(argc - 2, argv + 2);
	make_safe();
	/*
	 * One malloc arena for every thread (the read-ahead, the bounded early read of the stacks, zstd's): each thread's
	 * own arena would add its pages to a handler whose peak RSS is held under 8 MiB (t-bench-crash).
	 */
	(void) mallopt(M_ARENA_MAX, 1);
	diag_program("coresink");
	r = parse(argc, argv, &a, &mode);
	if (r != 0)
		return r == EXIT_OK_DONE ? 0 : r;
	for (size_t i = 0; i < ELEMENTSOF(modes); i++) {
		const struct mode *m = &modes[i];

		if (m->letter != mode || (m->operands == NO_OPERANDS && optind < argc) ||
		    (m->operands == NEEDS_OPERANDS && optind == argc))
			continue;
		return m->run(&a, argc - optind, argv + optind);
	}
	usage(stderr);
	return EXIT_USAGE;
}
