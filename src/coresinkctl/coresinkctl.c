/*
 * coresinkctl.c: the admin's command for coresink, on PATH: coredumpctl's verbs and options over coresink's own
 * entries (list, info, dump, debug, retrace: retrace.c), summary (summary.c) and check-config (checkconfig.c), which
 * the handler's flags of those names hand over to, retry-uploads, and what coredumpctl lacks: list --follow
 * (follow.c), remove, vacuum, status and metrics. It reads the journal, never writes a core, and removes one only as
 * root, through the handler's own vacuum. Who may see what: root every crash coresink recorded; another user only
 * their own (the others are counted and said).
 *
 * Exit codes: 0 done, 1 nothing matched (or not all removed), 100 usage, 111 system failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sodium.h>
#include <unistd.h>
#include <wordexp.h>

#include "admin.h"
#include "base.h"
#include "checkconfig.h"
#include "cleanup.h"
#include "flow.h"
#include "config.h"
#include "minicore.h"
#include "retrace.h"
#include "summary.h"
#include "tidy.h"
#include "store.h"
#include "sysroot.h"
#include "follow.h"
#include "status.h"

#ifndef VERSION
#define VERSION "0.1"
#endif

struct opts {
	const char *config, *output, *debugger, *debugger_args, *since_text;
	bool named, legend, quiet, dry_run, all, json_set, follow;
	enum json_mode json;
	struct selection sel;
	struct vacuum_spec vacuum;
	struct age_identities ids;   /* --identity: read encrypted cores with these (sel.identities) */
	bool ids_from_stdin;         /* one --identity was "-": debug gives gdb the terminal instead */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: coresinkctl [OPTIONS] [list] [-f|--follow] [MATCH...]\n"
		"       coresinkctl [OPTIONS] info [MATCH...]\n"
		"       coresinkctl [OPTIONS] dump [-o FILE] [--identity FILE] [MATCH...]\n"
		"       coresinkctl [OPTIONS] debug [--debugger=PATH] [-A ARGS] [--identity FILE] [MATCH...]\n"
		"       coresinkctl [OPTIONS] retrace [--identity FILE] [CORE-PATH | MATCH...]\n"
		"       coresinkctl [OPTIONS] remove [--dry-run] MATCH...\n"
		"       coresinkctl vacuum [--older-than=TIME] [--max-use=BYTES] [--exe=PATH] [--dry-run]\n"
		"       coresinkctl [OPTIONS] status [MATCH...]\n"
		"       coresinkctl summary [--json] [-D DIR] [--since TIME]\n"
		"       coresinkctl [OPTIONS] metrics\n"
		"       coresinkctl check-config [exe=PATH] [unit=UNIT] [user=USER] [signal=SIG] ...\n"
		"       coresinkctl retry-uploads [--all]\n"
		"       coresinkctl --help | --version\n"
		"MATCH: PID, COMM, /PATH/TO/EXE or FIELD=VALUE, as coredumpctl's.\n"
		"OPTIONS: --config FILE, -1, -n N, -r, -S/--since TIME, -U/--until TIME, -D/--directory DIR,\n"
		"         --file FILE, --json=short|pretty|off, --no-legend, -q\n");
}

enum { OPT_JSON = 256, OPT_NO_LEGEND, OPT_DEBUGGER, OPT_DRY_RUN, OPT_OLDER, OPT_MAX_USE, OPT_EXE, OPT_FILE,
       OPT_CONFIG, OPT_ALL, OPT_VERSION, OPT_IDENTITY };

/*
 * Why a file is no identity file, where it is a key of another kind: an identity kept encrypted (age -p, or to
 * another key), which age(1) reads but this does not (no passphrase prompt here); an SSH key, which no core is
 * encrypted to (Encrypt= takes X25519 recipients only). NULL for anything else.
 */
static const char *identity_kind(const char *text)
{
	static const char *const encrypted[] = { "age-encryption.org/v1\n", "-----BEGIN AGE ENCRYPTED FILE-----" };
	static const char *const ssh[] = { "-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----",
					   "-----BEGIN PRIVATE KEY-----" };

	for (size_t i = 0; i < ELEMENTSOF(encrypted); i++)
		if (strncmp(text, encrypted[i], strlen(encrypted[i])) == 0)
			return "encrypted with age (a protected identity file): give it decrypted for this run, "
			       "age -d FILE | coresinkctl ... --identity - (or --identity <(age -d FILE), but not "
			       "through sudo, which closes that descriptor)";
	for (size_t i = 0; i < ELEMENTSOF(ssh); i++)
		if (strncmp(text, ssh[i], strlen(ssh[i])) == 0)
			return "an SSH key, and Encrypt= encrypts to age X25519 recipients only (age-keygen's)";
	return NULL;
}

/* What is wrong with an --identity file: r as read_identities() got it, text what the file held. */
static const char *identity_error(int r, const char *text)
{
	const char *kind = r == -EINVAL ? identity_kind(text) : NULL;

	if (kind)
		return kind;
	if (r == -EINVAL)
		return "not an age identity file (AGE-SECRET-KEY-1... lines, as age-keygen writes)";
	return r == -E2BIG ? "more identities than the 16 a run takes" : strerror(-r);
}

/*
 * --identity FILE ("-": standard input, as age's -i): the age identities (age-keygen's file) an encrypted core is
 * read with, for this run only: read once, kept in locked memory where the limits allow. Given more than once, the
 * files' identities add up (age_identities_parse()), as age's. Exits with a usage error where a file is no identity
 * file, saying what it is where it is another kind of key.
 */
static void read_identities(struct opts *o, const char *path)
{
	bool in = strcmp(path, "-") == 0;
	char *text = sodium_init() >= 0 ? sodium_malloc(64 * 1024) : NULL;
	int r = -ENOMEM;

	if (text)
		r = in ? io_read_text_fd(STDIN_FILENO, text, 64 * 1024) : io_read_text(path, text, 64 * 1024);
	if (r >= 0)
		r = age_identities_parse(text, &o->ids);
	if (r < 0) {
		(void) fail_code(EXIT_USAGE, "--identity %s: %s", in ? "(standard input)" : path, identity_error(r, text));
		sodium_free(text);
		exit(EXIT_USAGE);
	}
	sodium_free(text);
	o->ids_from_stdin |= in;
	/* Best effort: without CAP_IPC_LOCK or room under RLIMIT_MEMLOCK, the keys may be swapped. */
	(void) sodium_mlock(&o->ids, sizeof(o->ids));
	o->sel.identities = &o->ids;
}

/* "7d", "12h", "30min", "90s" or plain seconds into seconds (parse_duration()). 0 or -EINVAL/-ERANGE. */
static int parse_age(const char *s, uint64_t *secs)
{
	uint64_t usec;
	int r = parse_duration(s, 1000000, &usec);

	if (r == 0)
		*secs = usec / 1000000;
	return r;
}

static int add_file(struct opts *o, const char *path)
{
	size_t n = 0;
	const char **files;

	while (o->sel.files && o->sel.files[n])
		n++;
	files = realloc(o->sel.files, (n + 2) * sizeof(*files));
	if (!files)
		return -ENOMEM;
	files[n] = path;
	files[n + 1] = NULL;
	o->sel.files = files;
	return 0;
}

static int time_option(const char *arg, uint64_t *usec)
{
	return entries_parse_time(arg, clock_realtime_us(), usec);
}

/* Parses the options, wherever they stand among the verb and its matches. 0, or an exit code. */
static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, OPT_VERSION },
		{ "config", required_argument, NULL, OPT_CONFIG }, { "reverse", no_argument, NULL, 'r' },
		{ "since", required_argument, NULL, 'S' }, { "until", required_argument, NULL, 'U' },
		{ "directory", required_argument, NULL, 'D' }, { "file", required_argument, NULL, OPT_FILE },
		{ "json", optional_argument, NULL, OPT_JSON }, { "no-legend", no_argument, NULL, OPT_NO_LEGEND },
		{ "quiet", no_argument, NULL, 'q' }, { "output", required_argument, NULL, 'o' },
		{ "debugger", required_argument, NULL, OPT_DEBUGGER },
		{ "debugger-arguments", required_argument, NULL, 'A' }, { "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "older-than", required_argument, NULL, OPT_OLDER }, { "max-use", required_argument, NULL, OPT_MAX_USE },
		{ "exe", required_argument, NULL, OPT_EXE }, { "all", no_argument, NULL, OPT_ALL },
		{ "identity", required_argument, NULL, OPT_IDENTITY }, { "follow", no_argument, NULL, 'f' },
		{ 0 },
	};
	int ch;
	uint64_t n;

	while ((ch = getopt_long(argc, argv, "h1n:rS:U:D:qo:A:f", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h': usage(stdout); exit(0);
		case OPT_VERSION: printf("coresinkctl %s\n", VERSION); exit(0);
		case OPT_CONFIG: o->config = optarg, o->named = true; break;
		case '1': o->sel.newest = 1; break;
		case 'n':
			if (parse_u64(optarg, &n) < 0 || n == 0 || n > LONG_MAX)
				return fail_code(EXIT_USAGE, "-n takes a number above 0");
			o->sel.newest = (long)n;
			break;
		case 'r': o->sel.reverse = true; break;
		case 'S':
		case 'U':
			if (time_option(optarg, ch == 'S' ? &o->sel.since : &o->sel.until) < 0)
				return fail_code(EXIT_USAGE, "not a time: %s", optarg);
			if (ch == 'S')
				o->since_text = optarg;
			break;
		case 'D': o->sel.directory = optarg; break;
		case OPT_FILE:
			if (add_file(o, optarg) < 0)
				return EXIT_SYSTEM;
			break;
		case OPT_JSON:
			o->json_set = true;
			if (!optarg || strcmp(optarg, "short") == 0)
				o->json = JSON_SHORT;
			else if (strcmp(optarg, "pretty") == 0)
				o->json = JSON_PRETTY;
			else if (strcmp(optarg, "off") == 0)
				o->json = JSON_OFF;
			else
				return fail_code(EXIT_USAGE, "--json takes short, pretty or off");
			break;
		case OPT_NO_LEGEND: o->legend = false; break;
		case 'q': o->quiet = true; break;
		case 'o': o->output = optarg; break;
		case OPT_DEBUGGER: o->debugger = optarg; break;
		case 'A': o->debugger_args = optarg; break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case OPT_OLDER:
			if (parse_age(optarg, &o->vacuum.older_than) < 0 || o->vacuum.older_than == 0)
				return fail_code(EXIT_USAGE, "--older-than takes an age: 7d, 12h, 30min");
			break;
		case OPT_MAX_USE:
			if (parse_bytes(optarg, &o->vacuum.max_use) < 0)
				return fail_code(EXIT_USAGE, "--max-use takes bytes: 2G, 500M");
			o->vacuum.have_max_use = true;
			break;
		case OPT_EXE: o->vacuum.exe = optarg; break;
		case OPT_ALL: o->all = true; break;
		case 'f': o->follow = true; break;
		case OPT_IDENTITY: read_identities(o, optarg); break;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (o->sel.directory && o->sel.files)
		return fail_code(EXIT_USAGE, "-D and --file: one or the other");
	return 0;
}

/* Reads the crashes the selection names; says what was left out. 0, 1 for none, or EXIT_SYSTEM. */
static int find(const struct opts *o, struct found *f)
{
	int r = entries_find(&o->sel, f);

	if (r < 0)
		return fail_code(EXIT_SYSTEM, "the journal: %s", strerror(-r));
	if (f->foreign && !o->quiet)
		fprintf(stderr, "coresinkctl: %u entries with coresink's MESSAGE_ID skipped: coresink did not write them\n",
			f->foreign);
	if (f->hidden)
		fprintf(stderr, "coresinkctl: permission denied: %u crash(es) of other users hidden\n", f->hidden);
	if (f->n == 0) {
		if (!o->quiet)
			fprintf(stderr, "No coredumps found.\n");
		return 1;
	}
	return 0;
}

/* dump: the newest match's core, to --output or to stdout (never a terminal). */
static int dump(const struct opts *o, int dirfd, const struct record *c)
{
	int out = STDOUT_FILENO, r;

	if (!o->output && isatty(STDOUT_FILENO))
		return fail_code(EXIT_USAGE, "refusing to dump core to a terminal (use -o FILE or a redirection)");
	if (o->output) {
		out = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);
		if (out < 0)
			return fail_code(EXIT_SYSTEM, "%s: %s", o->output, strerror(errno));
	}
	r = corefile_write(&o->sel, dirfd, c, out);
	if (out != STDOUT_FILENO && close(out) < 0 && r == 0)
		r = -errno;
	if (r == 0)
		return 0;
	fprintf(stderr, "coresinkctl: the core of pid %d: %s\n", (int)c->pid, corefile_strerror(r));
	return r == -ENOENT ? 1 : EXIT_SYSTEM;
}

/* The kept modules of the crash whose core is named core, made ready for gdb (sysroot.c), and said. */
static void keep_given(const char *directory, int dirfd, const char *core, const char *exe, struct sysroot *root)
{
	int r = sysroot_make(dirfd, directory, core, exe, root);

	if (r < 0)
		fprintf(stderr, "coresinkctl: the kept modules could not be given to gdb: %s\n", strerror(-r));
	else if (root->exe[0] || root->libraries)
		fprintf(stderr, "coresinkctl: the modules that ran, kept (KeepModules=): %s%u librar%s\n",
			root->exe[0] ? "the executable and " : "", root->libraries, root->libraries == 1 ? "y" : "ies");
	if (root->over_bound)
		fprintf(stderr, "coresinkctl: %u kept librar%s not given to gdb: their directories hold more than %d "
			"entries\n", root->over_bound, root->over_bound == 1 ? "y" : "ies", SYSROOT_LINKS_MAX);
}

/*
 * The executable gdb is given for the crash: the kept one, or the entry's where it is an absolute path to a regular
 * file. Never anything else: an entry's EXE is the crashing process's (or a forger's) word, and gdb would take
 * "-ex=shell ..." as an option. NULL for none (gdb then reads the core alone).
 */
static const char *debug_exe(const struct record *c, const struct sysroot *root)
{
	struct stat st;

	if (root->exe[0])
		return root->exe;
	return c->exe[0] == '/' && stat(c->exe, &st) == 0 && S_ISREG(st.st_mode) ? c->exe : NULL;
}

/* The signals debug holds while gdb runs: the terminal's go to gdb, the others are passed on, then acted on. */
static void debug_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/*
 * In the child: the signals as they were, gdb's argv, and gdb. Never returns. tty: the identity came on standard
 * input (age -d key.age | coresinkctl debug --identity -), which is spent: gdb reads the terminal there, if any.
 */
static void debug_exec(const char *dbg, char **argv, const sigset_t *old, bool tty)
{
	int fd = tty && !isatty(STDIN_FILENO) ? open("/dev/tty", O_RDWR | O_CLOEXEC) : -1;

	if (fd >= 0)
		(void) dup2(fd, STDIN_FILENO);
	(void) sigprocmask(SIG_SETMASK, old, NULL);
	execvp(dbg, argv);
	fprintf(stderr, "coresinkctl: %s: %s\n", dbg, strerror(errno));
	_exit(EXIT_SYSTEM);
}

/*
 * Waits for gdb (pid), passing on SIGTERM and SIGHUP sent to this process; Ctrl-C and Ctrl-\ reach gdb from its
 * terminal and are gdb's. Its status into *status; the signal that asked this process to end, or 0.
 */
static int debug_wait(pid_t pid, const sigset_t *set, int *status)
{
	const struct timespec tick = { 0, 100 * 1000000L };
	int ended = 0;

	for (;;) {
		int sig = sigtimedwait(set, NULL, &tick);

		if (sig == SIGTERM || sig == SIGHUP) {
			ended = sig;
			(void) kill(pid, sig);
		}
		if (waitpid(pid, status, WNOHANG) == pid)
			return ended;
	}
}

/*
 * The core in fd made safe for gdb's banner: its NT_PRPSINFO text (elfcore_clean_psinfo), the crashing process's
 * own, which gdb prints raw ("Core was generated by `...'"), rewritten in this private copy before gdb reads it.
 * What gdb takes from the executable itself (its symbols' names) is that file's, and is not filtered
 * (docs/security.md).
 */
static void clean_core_text(int fd)
{
	static unsigned char head[ELFCORE_HEAD_MAX];
	ssize_t n = io_pread_full(fd, head, sizeof(head), 0);

	if (n > 0 && elfcore_clean_psinfo(head, (size_t)n) > 0 && io_pwrite_full(fd, head, (size_t)n, 0) == 0)
		fprintf(stderr, "coresinkctl: the crashing process's name and command line hold bytes a terminal would "
			"act on: gdb is shown them as '?'\n");
}

/*
 * debug: the newest match's core in an unlinked file (O_TMPFILE: nothing is left behind, whatever ends this
 * process), and the debugger (gdb) run on it with the executable, both after "--": nothing from the entry is an
 * option. Where its modules were kept (KeepModules=), gdb is given them (sysroot.c): the kept executable, and a
 * root where the kept libraries stand at their paths; that tree is removed when gdb is done, or this process is
 * asked to end (SIGTERM, SIGHUP, passed on to gdb first).
 */
static int debug(const struct opts *o, const char *directory, int dirfd, const struct record *c)
{
	const char *env = getenv("SYSTEMD_DEBUGGER"), *dbg = o->debugger ? o->debugger : env ? env : "gdb";
	const char *base = strrchr(dbg, '/') ? strrchr(dbg, '/') + 1 : dbg, *exe;
	char core[NAME_MAX_LEN], set[128], iex[] = "-iex", dashes[] = "--", corepath[64];
	struct sysroot root = { .dir = "" };
	wordexp_t we = { 0 };
	sigset_t hold, old;
	_cleanup_close_ int fd = corefile_scratch(c, "/var/tmp");
	int r, status = 0, ended = 0;
	pid_t pid = -1;

	if (fd < 0)
		return fail_code(EXIT_SYSTEM, "/var/tmp: %s", strerror(-fd));
	if (o->debugger_args && wordexp(o->debugger_args, &we, WRDE_NOCMD | WRDE_UNDEF) != 0)
		return fail_code(EXIT_USAGE, "debug: bad --debugger-arguments");
	r = corefile_write(&o->sel, dirfd, c, fd);
	if (r == 0)
		clean_core_text(fd);
	(void) snprintf(corepath, sizeof(corepath), "/proc/%d/fd/%d", (int)getpid(), fd);
	debug_signals(&hold);
	(void) sigprocmask(SIG_BLOCK, &hold, &old);
	if (r == 0 && strcmp(base, "gdb") == 0 && corefile_find(dirfd, c, core, sizeof(core)) == 0)
		keep_given(directory, dirfd, core, c->exe, &root);
	(void) snprintf(set, sizeof(set), "set sysroot %s", root.dir);
	exe = debug_exe(c, &root);
	if (r == 0 && !exe)
		fprintf(stderr, "coresinkctl: the entry's executable is not a file here: gdb reads the core alone\n");
	if (r == 0 && (pid = fork()) == 0) {
		char **argv = calloc(we.we_wordc + 7, sizeof(*argv));
		size_t n = 0;

		if (!argv)
			_exit(EXIT_SYSTEM);
		argv[n++] = strdup(dbg);
		if (root.dir[0]) {
			argv[n++] = iex;
			argv[n++] = set;
		}
		for (size_t i = 0; i < we.we_wordc; i++)
			argv[n++] = we.we_wordv[i];
		/* gdb's second argument is a core only after a first: without an executable, --core= says which. */
		if (exe) {
			argv[n++] = dashes;
			argv[n++] = strdup(exe);
			argv[n++] = corepath;
		} else if (asprintf(&argv[n++], "--core=%s", corepath) < 0) {
			_exit(EXIT_SYSTEM);
		}
		debug_exec(dbg, argv, &old, o->ids_from_stdin);
	} else if (r == 0 && pid < 0) {
		r = -errno;
	}
	if (pid > 0)
		ended = debug_wait(pid, &hold, &status);
	if (o->debugger_args)
		wordfree(&we);
	sysroot_remove(&root);
	(void) sigprocmask(SIG_SETMASK, &old, NULL);
	if (ended) {
		(void) signal(ended, SIG_DFL);
		(void) raise(ended);
	}
	if (r < 0)
		return fail_code(r == -ENOENT ? 1 : EXIT_SYSTEM, "debug: the core of pid %d: %s", (int)c->pid,
				 corefile_strerror(r));
	return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_SYSTEM;
}

/* What a verb of the crashes in the journal works with: its options, the config, the core directory, the crashes. */
struct ctx {
	struct opts *o;
	const struct config *c;
	int dirfd;
	struct found *f;
};

/*
 * The captures in progress (root's: the ledger is), where the list is of this machine's crashes, unmatched: NULL
 * where none is or none can be known.
 */
static struct captures_now *in_progress(const struct ctx *x)
{
	struct captures_now *now = NULL;

	if (x->dirfd < 0 || x->o->sel.n_matches || x->o->sel.directory || x->o->sel.files)
		return NULL;
	now = malloc(sizeof(*now));
	if (now && (captures_now(x->dirfd, now) < 0 || now->n == 0)) {
		free(now);
		now = NULL;
	}
	return now;
}

/* list: the crashes found, then the captures in progress; 1 (coredumpctl's) where neither is. */
static int do_list(struct ctx *x)
{
	struct captures_now *now;
	int r;

	if (x->o->follow) {
		r = follow_list(&x->o->sel, x->dirfd, x->o->legend, x->o->json);
		return fail_code(EXIT_SYSTEM, "list --follow: the journal: %s", strerror(-r));
	}
	now = in_progress(x);
	r = x->f->n || now ? 0 : 1;

	if (r == 0)
		show_list(stdout, x->f, x->dirfd, now, x->o->legend, x->o->json);
	free(now);
	return r;
}

static int do_info(struct ctx *x)
{
	show_info(stdout, x->f, x->dirfd, x->o->json);
	return 0;
}

static int do_dump(struct ctx *x)
{
	return dump(x->o, x->dirfd, &x->f->c[x->f->n - 1]);
}

static int do_debug(struct ctx *x)
{
	return debug(x->o, x->c->directory, x->dirfd, &x->f->c[x->f->n - 1]);
}

static int do_remove(struct ctx *x)
{
	if (x->dirfd < 0)
		return fail_code(EXIT_SYSTEM, "%s: not opened", x->c->directory);
	return cleanup_remove(x->dirfd, x->f, "coresinkctl remove", x->o->dry_run);
}

static int do_status(struct ctx *x)
{
	return status_show(x->c, x->dirfd, x->f);
}

/* The verbs that do not read crashes, each on its own: their options and operands. */
static int do_summary(struct opts *o, int argc, char **argv)
{
	(void) argc, (void) argv;
	return summary_main(o->sel.directory, o->since_text, o->json != JSON_OFF || o->json_set);
}

static int do_check_config(struct opts *o, int argc, char **argv)
{
	return check_config(o->config, o->named, argc, argv);
}

static int do_retry_uploads(struct opts *o, int argc, char **argv)
{
	(void) argc, (void) argv;
	return ship_retry(o->config, o->named, o->all) < 0 ? EXIT_SYSTEM : 0;
}

static int do_retrace(struct opts *o, int argc, char **argv)
{
	return retrace_main(o->config, o->named, &o->sel, argc, argv);
}

static int do_vacuum(struct opts *o, int argc, char **argv)
{
	struct config c;
	struct diag d = { 0 };
	_cleanup_close_ int dirfd = -1;
	int r;

	(void) argv;
	if (argc || (!o->vacuum.older_than && !o->vacuum.have_max_use && !o->vacuum.exe))
		return fail_code(EXIT_USAGE, "vacuum takes --older-than, --max-use or --exe, and no MATCH");
	config_read(&c, o->config, o->named, &d);
	if (!o->quiet)
		diag_print(&d, stderr, "coresinkctl: ");
	dirfd = corefile_directory(&c);
	r = dirfd < 0 ? fail_code(EXIT_SYSTEM, "%s: not opened", c.directory) :
			cleanup_vacuum(dirfd, &o->vacuum, "coresinkctl vacuum", o->dry_run);
	config_free(&c);
	return r;
}

/* The counters of the crashes and the directory's state, as MetricsFile= holds them (promfile.c). */
static int do_metrics(struct opts *o, int argc, char **argv)
{
	struct config c;
	struct metrics m;
	struct diag d = { 0 };
	_cleanup_close_ int dirfd = -1;
	int r;

	(void) argv;
	if (argc)
		return fail_code(EXIT_USAGE, "metrics takes no MATCH");
	config_read(&c, o->config, o->named, &d);
	if (!o->quiet)
		diag_print(&d, stderr, "coresinkctl: ");
	dirfd = corefile_directory(&c);
	/* No directory yet (no crash stored): the counters are all zero, and there is nothing to gauge. */
	r = dirfd < 0 && errno != ENOENT ? -EBADF : dirfd < 0 ? 0 : metrics_read(dirfd, &m);
	if (dirfd < 0 && r == 0)
		m = (struct metrics) { 0 };
	if (r == -EBADF)
		r = fail_code(EXIT_SYSTEM, "%s: not opened", c.directory);
	else if (r < 0)
		r = fail_code(EXIT_SYSTEM, "%s/%s: %s", c.directory, METRICS_STATE, strerror(-r));
	else
		r = metrics_print(stdout, dirfd, &c, &m) < 0 ? EXIT_SYSTEM : 0;
	config_free(&c);
	return r;
}

/*
 * The verbs: a name, whether only root may, and what runs it: on its own (run), or on the crashes its matches name
 * (crashes), with how many (one: the newest only), whether it needs one match at least, and whether it runs when
 * none was found (status).
 */
static const struct verb {
	const char *name;
	bool root;
	int (*run)(struct opts *o, int argc, char **argv);
	int (*crashes)(struct ctx *x);
	bool one, needs_match, without_crashes;
} verbs[] = {
	{ "list", false, NULL, do_list, false, false, true },
	{ "info", false, NULL, do_info, false, false, false },
	{ "dump", false, NULL, do_dump, true, false, false },
	{ "debug", false, NULL, do_debug, true, false, false },
	{ "remove", true, NULL, do_remove, false, true, false },
	{ "status", false, NULL, do_status, false, false, true },
	{ "retrace", false, do_retrace, NULL, false, false, false },
	{ "vacuum", true, do_vacuum, NULL, false, false, false },
	{ "summary", false, do_summary, NULL, false, false, false },
	{ "metrics", true, do_metrics, NULL, false, false, false },
	{ "check-config", false, do_check_config, NULL, false, false, false },
	{ "retry-uploads", false, do_retry_uploads, NULL, false, false, false },
};

/* A verb of the crashes the matches (argv) name, found in the journal, with the config and its core directory. */
static int crashes_verb(const struct verb *v, struct opts *o, int argc, char **argv)
{
	struct config c;
	struct diag d = { 0 };
	struct found f;
	struct ctx x = { o, &c, -1, &f };
	int r;

	if (v->needs_match && argc == 0)
		return fail_code(EXIT_USAGE, "%s needs a MATCH (vacuum removes by age or size)", v->name);
	for (int i = 0; i < argc; i++) {
		char field[4096];

		if (entries_match(argv[i], field, sizeof(field)) < 0)
			return fail_code(EXIT_USAGE, "not a match: '%s'", argv[i]);
	}
	config_read(&c, o->config, o->named, &d);
	if (!o->quiet)
		diag_print(&d, stderr, "coresinkctl: ");
	o->sel.matches = argv;
	o->sel.n_matches = argc;
	if (v->one && !o->sel.newest)
		o->sel.newest = 1;
	x.dirfd = corefile_directory(&c);
	r = find(o, &f);
	if (r == 0 || (v->without_crashes && r != EXIT_SYSTEM))
		r = v->crashes(&x);
	entries_free(&f);
	fd_close(&x.dirfd);
	config_free(&c);
	return r;
}

int main(int argc, char **argv)
{
	struct opts o = { .config = CONFIG_DEFAULT_PATH, .legend = true };
	const struct verb *v = &verbs[0];
	int r, n_rest;
	char **rest;

	diag_program("coresinkctl");
	r = parse(argc, argv, &o);
	if (r != 0) {
		free((void *)o.sel.files);
		return r;
	}
	rest = argv + optind;
	n_rest = argc - optind;
	for (size_t i = 0; n_rest > 0 && i < ELEMENTSOF(verbs); i++)
		if (strcmp(rest[0], verbs[i].name) == 0) {
			v = &verbs[i];
			rest++, n_rest--;
			break;
		}
	if (o.follow && v != &verbs[0])
		r = fail_code(EXIT_USAGE, "--follow is list's");
	else if (v->root && geteuid() != 0)
		r = fail_code(EXIT_USAGE, "%s: only root may (%s)", v->name,
			      strcmp(v->name, "metrics") == 0 ? "the counts are root's" : "it removes cores");
	else
		r = v->run ? v->run(&o, n_rest, rest) : crashes_verb(v, &o, n_rest, rest);
	free((void *)o.sel.files);
	return r;
}
