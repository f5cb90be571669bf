/*
 * handler.c: the handlers coresink-bench --crash compares, from "name[:knob=value...]" to the kernel.core_pattern
 * line that selects each. coresink's variants get a config file of their own in the bench directory; the null sink
 * is this very program with --drain; systemd-coredump is reached through its socket, started here (socket-activated,
 * as systemd would) when no systemd runs it.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "cgacct.h"
#include "crash.h"
#include "handler.h"
#include "config.h"

static const char *const handler_kind_names[] = {
	[HANDLER_CORESINK] = "coresink",
	[HANDLER_KERNEL] = "kernel",
	[HANDLER_CAT] = "cat",
	[HANDLER_NULL] = "null",
	[HANDLER_DIRECT] = "direct",
	[HANDLER_SYSTEMD] = "systemd-coredump",
	[HANDLER_NULL_SOCKET] = "null-socket",
	[HANDLER_EXEC] = "exec",
	[HANDLER_COREDUMPD] = "systemd-coredumpd",
};

DEFINE_STRING_TABLE_LOOKUP(handler_kind, enum handler_kind, handler_kind_names, _HANDLER_KIND_MAX)

bool handler_is_ceiling(const struct handler *h)
{
	return h->kind == HANDLER_NULL || h->kind == HANDLER_DIRECT || h->kind == HANDLER_NULL_SOCKET;
}

/* Whether the handler is systemd-coredump's, which stores in its own directory, after the crash returns. */
bool handler_stores_in_systemd(const struct handler *h)
{
	return h->kind == HANDLER_SYSTEMD || h->kind == HANDLER_COREDUMPD;
}

/* Whether the kernel hands the handler's crashes to a socket ("@@"): its ceiling is null-socket's. */
bool handler_is_socket_mode(const struct handler *h)
{
	return h->socket || h->kind == HANDLER_COREDUMPD;
}

bool systemd_coredump_installed(void)
{
	return access(SYSTEMD_COREDUMP, X_OK) == 0;
}

/* The identity a variant's Encrypt=bench cores are encrypted to, and read back with (crash.c); "" until made. */
char handler_age_identity[PATH_MAX];

/*
 * Encrypt=bench: a key pair of the run's own, made once in dir by age-keygen (age(1) reads the cores back), its
 * public key into the config line. 0 or -errno.
 */
static int bench_recipient(const char *dir, FILE *f)
{
	char cmd[PATH_MAX * 2 + 64], pub[128] = "";
	FILE *p;

	if (!handler_age_identity[0]) {
		(void) snprintf(handler_age_identity, sizeof(handler_age_identity), "%s/bench-age.txt", dir);
		(void) snprintf(cmd, sizeof(cmd), "age-keygen -o '%s' 2>/dev/null", handler_age_identity);
		if (system(cmd) != 0) {
			handler_age_identity[0] = '\0';
			return -ENOENT;
		}
	}
	(void) snprintf(cmd, sizeof(cmd), "age-keygen -y '%s'", handler_age_identity);
	p = popen(cmd, "re");
	if (!p)
		return -errno;
	if (!fgets(pub, sizeof(pub), p))
		pub[0] = '\0';
	(void) pclose(p);
	pub[strcspn(pub, "\n")] = '\0';
	if (strncmp(pub, "age1", 4) != 0)
		return -ENOENT;
	fprintf(f, "Encrypt=%s\n", pub);
	return 0;
}

/*
 * A knob of a coresink variant as a config line: sparse=on|off, chunk=SIZE, Encrypt=bench (a key pair of the run's
 * own), MetricsFile=bench (a file in the run's directory), or any Key=Value of coresink.conf(5).
 */
static int knob_line(const char *kv, const char *dir, FILE *f)
{
	const char *val = strchr(kv, '=');

	if (!val++)
		return -EINVAL;
	if (strcmp(kv, "Encrypt=bench") == 0)
		return bench_recipient(dir, f);
	if (strcmp(kv, "MetricsFile=bench") == 0)
		return fprintf(f, "MetricsFile=%s/coresink.prom\n", dir) < 0 ? -EIO : 0;
	if (strncmp(kv, "sparse=", 7) == 0 && (strcmp(val, "on") == 0 || strcmp(val, "off") == 0))
		fprintf(f, "Sparse=%s\n", strcmp(val, "on") == 0 ? "yes" : "no");
	else if (strncmp(kv, "chunk=", 6) == 0)
		fprintf(f, "ChunkSize=%s\n", val);
	else if (kv[0] >= 'A' && kv[0] <= 'Z')
		fprintf(f, "%s\n", kv);
	else
		return -EINVAL;
	return 0;
}

/*
 * The config of a coresink variant: its strategy and knobs in a directory of cores with no quota to speak of and
 * no rate limit (a benchmark is a crash loop, which the limits would rightly stop). Checked the way the handler
 * reads it: a knob coresink would ignore is a usage error here. 0 or -errno.
 */
static int write_config(struct handler *h, const char *dir, const char *cores, int index, const char *strategy,
			char *knobs)
{
	struct config c;
	struct diag d = { 0 };
	char *save = NULL;
	FILE *f;
	int r = 0;

	(void) snprintf(h->config, sizeof(h->config), "%s/h%d.conf", dir, index);
	f = fopen(h->config, "we");
	if (!f)
		return -errno;
	fprintf(f, "[Coresink]\nDirectory=%s\nStrategy=%s\nKeepFree=1G\nMaxUse=100%%\n"
		   "RateLimitBurst=0\nRateLimitGlobalBurst=0\n", cores, strategy);
	/* A benchmark's crashes are not the machine's: node_exporter's file, the notifiers and the collect hooks are left
	 * alone unless a knob asks. */
	fprintf(f, "MetricsFile=no\nNotifyDirectory=no\nCollectDirectory=no\n");
	if (h->socket)
		fprintf(f, "Socket=%s/h%d.sock\n", dir, index);
	for (char *tok = strtok_r(knobs, ":", &save); tok && r == 0; tok = strtok_r(NULL, ":", &save))
		r = knob_line(tok, dir, f);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && (config_load(&c, h->config, &d) < 0 || diag_count(&d) > 0))
		r = -EINVAL;
	return r;
}

/* Runs coresink --config CONFIG --core-pattern [--socket] and keeps the line it prints. 0 or -errno. */
static int ask_pattern(const char *coresink, const char *config, bool socket, char *line, size_t size)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		(void) dup2(p[1], STDOUT_FILENO);
		execl(coresink, coresink, "--config", config, "--core-pattern", socket ? "--socket" : (char *)NULL,
		      (char *)NULL);
		_exit(EXIT_SYSTEM);
	}
	(void) close(p[1]);
	n = pid < 0 ? -1 : io_read_full(p[0], line, size - 1, NULL);
	(void) close(p[0]);
	if (pid < 0 || io_waitpid(pid, &status) < 0 || !WIFEXITED(status))
		return -ECHILD;
	/* coresink has said why on stderr: a path with a blank, or a pattern too long for the kernel. */
	if (WEXITSTATUS(status) != 0 || n <= 0)
		return -ENAMETOOLONG;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	return 0;
}

/* The pattern of one handler; a coresink variant asks the handler itself, with its config. 0 or -errno. */
static int make_pattern(struct handler *h, const struct bench_paths *p, int index)
{
	int n;

	switch (h->kind) {
	case HANDLER_CORESINK: return ask_pattern(p->coresink, h->config, h->socket, h->pattern, sizeof(h->pattern));
	/* The kernel splits the pattern at blanks before it expands it: no blank may stand inside an argument. */
	case HANDLER_CAT: n = snprintf(h->pattern, sizeof(h->pattern), "|/bin/sh -c cat>%s/core.cat", p->cores); break;
	case HANDLER_KERNEL: n = snprintf(h->pattern, sizeof(h->pattern), "%s/core.%%p", p->cores); break;
	case HANDLER_NULL: n = snprintf(h->pattern, sizeof(h->pattern), "|%s --drain", p->self); break;
	case HANDLER_NULL_SOCKET: n = snprintf(h->pattern, sizeof(h->pattern), "@@%s/h%d.sock", p->dir, index); break;
	case HANDLER_COREDUMPD: n = snprintf(h->pattern, sizeof(h->pattern), "@@%s", SYSTEMD_COREDUMPD_SOCKET); break;
	case HANDLER_EXEC: n = snprintf(h->pattern, sizeof(h->pattern), "|%s %s/core.exec", h->program, p->cores); break;
	/* Debian's 50-coredump.conf, word for word. */
	case HANDLER_SYSTEMD:
		n = snprintf(h->pattern, sizeof(h->pattern),
			     "|%s %%P %%u %%g %%s %%t 9223372036854775808 %%h %%d", SYSTEMD_COREDUMP);
		break;
	default: return 0;
	}
	return n > 0 && (size_t)n < sizeof(h->pattern) ? 0 : -ENAMETOOLONG;
}

static bool is_socket(const char *path);

/*
 * exec:PATH's program: an absolute path to an executable, with no blank (the kernel splits core_pattern at blanks)
 * and no % (it would expand it). 0 or -EINVAL.
 */
static int exec_program(const char *path, struct handler *h)
{
	if (!path || path[0] != '/' || strpbrk(path, " \t\n%") || strlen(path) >= sizeof(h->program) ||
	    access(path, X_OK) < 0)
		return -EINVAL;
	strcpy(h->program, path);
	return 0;
}

/*
 * One handler from "name[:knob=value...]": a coresink strategy with knobs, coresink's socket mode ("socket", the
 * default strategy) with knobs, or one of the other kinds. 0 or -errno.
 */
int handler_parse(const char *spec, int index, const struct bench_paths *p, struct handler *h)
{
	char buf[sizeof(h->name)], *colon;
	int k;

	if (strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	strcpy(h->name, spec);
	colon = strchr(buf, ':');
	if (colon)
		*colon++ = '\0';
	h->socket = strcmp(buf, "socket") == 0;
	if (strategy_from_string(buf) >= 0 || h->socket) {
		h->kind = HANDLER_CORESINK;
		/* Without it, its --core-pattern would fail for want of a program, not of a short pattern. */
		if (access(p->coresink, X_OK) < 0)
			return -ENOENT;
		k = write_config(h, p->dir, p->cores, index, h->socket ? "readwrite" : buf,
				 colon ? colon : buf + strlen(buf));
		return k < 0 ? k : make_pattern(h, p, index);
	}
	k = handler_kind_from_string(buf);
	if (k < 0 || k == HANDLER_CORESINK)
		return -EINVAL;
	h->kind = (enum handler_kind)k;
	if (h->kind == HANDLER_EXEC)
		return exec_program(colon, h) < 0 ? -EINVAL : make_pattern(h, p, index);
	/* The null socket server's one knob: how it drains. */
	h->socket = h->kind == HANDLER_NULL_SOCKET;
	h->drain_read = h->socket && colon && strcmp(colon, "read") == 0;
	if (colon && !h->drain_read)
		return -EINVAL;
	if (h->kind == HANDLER_SYSTEMD && !systemd_coredump_installed())
		return -ENOENT;
	/* Served by its unit, not by the bench: it must be running (systemctl start systemd-coredumpd.service). */
	if (h->kind == HANDLER_COREDUMPD) {
		if (!is_socket(SYSTEMD_COREDUMPD_SOCKET))
			return -ENOTCONN;
		if (access(SYSTEMD_COREDUMPD_CGROUP, F_OK) == 0)
			(void) snprintf(h->cgroup, sizeof(h->cgroup), "%s", SYSTEMD_COREDUMPD_CGROUP);
	}
	return make_pattern(h, p, index);
}

/* Whether systemd-coredump's socket (SOCK_SEQPACKET) takes a connection. */
static bool sdc_listening(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return false;
	(void) snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	(void) close(fd);
	return r == 0;
}

/* Whether path is a socket: coresink --serve binds it right before it listens (a test connection would be logged). */
static bool is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Stops a server spawn_server() started: SIGTERM (coresink --serve finishes the crash in hand), then reaped. */
static void stop_server(pid_t pid)
{
	int status;

	if (pid <= 0)
		return;
	(void) kill(pid, SIGTERM);
	(void) io_waitpid(pid, &status);
}

/*
 * Starts a server the bench needs (argv, looked up in PATH) with its output on /dev/null, dying with the bench,
 * and waits up to 5 s until ready(path). Its pid, or -errno (then it is stopped).
 */
static pid_t spawn_server(const char *const argv[], bool (*ready)(const char *), const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		char *args[8];
		size_t n = 0;

		/* exec takes writable strings; the child's copies are its own. */
		for (; n < ELEMENTSOF(args) - 1 && argv[n]; n++)
			if (!(args[n] = strdup(argv[n])))
				_exit(EXIT_SYSTEM);
		args[n] = NULL;
		if (n == 0)
			_exit(EXIT_SYSTEM);

		(void) dup2(null, STDOUT_FILENO);
		(void) dup2(null, STDERR_FILENO);
		/* A bench killed by a signal must not leave it listening. */
		(void) prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
		execvp(args[0], args);
		_exit(EXIT_SYSTEM);
	}
	if (pid < 0)
		return -errno;
	for (int i = 0; i < 50; i++) {
		const struct timespec tick = { 0, 100000000 };

		if (ready(path))
			return pid;
		nanosleep(&tick, NULL);
	}
	stop_server(pid);
	return -ETIMEDOUT;
}

/*
 * systemd-coredump's kernel-side helper hands the core to a socket-activated instance. Where no systemd listens
 * on that socket (no systemd as PID 1), one is started here as systemd would: returns its pid, to be stopped with
 * sdc_stop(); 0 when one listens already; -errno when none can.
 */
pid_t sdc_start(void)
{
	const char *const argv[] = { "systemd-socket-activate", "--seqpacket", "-a", "-l", SYSTEMD_COREDUMP_SOCKET,
				     SYSTEMD_COREDUMP, NULL };

	if (sdc_listening(SYSTEMD_COREDUMP_SOCKET))
		return 0;
	(void) mkdir("/run/systemd", 0755);
	(void) mkdir(SYSTEMD_COREDUMP_DIR, 0755);
	(void) unlink(SYSTEMD_COREDUMP_SOCKET);
	return spawn_server(argv, sdc_listening, SYSTEMD_COREDUMP_SOCKET);
}

void sdc_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	stop_server(pid);
	(void) unlink(SYSTEMD_COREDUMP_SOCKET);
}

/*
 * Starts a socket-mode handler's server until it listens: coresink --serve, as its unit would, or the null one
 * (coresink-bench --drain-socket). 0 or -errno.
 */
int server_start(const struct bench_paths *p, struct handler *h, int index)
{
	char sock[PATH_MAX + 32];
	const char *const serve[] = { p->coresink, "--config", h->config, "--serve", NULL };
	const char *const drain[] = { p->self, "--drain-socket", sock, h->drain_read ? "read" : NULL, NULL };
	pid_t pid;

	(void) snprintf(sock, sizeof(sock), "%s/h%d.sock", p->dir, index);
	pid = spawn_server(h->kind == HANDLER_NULL_SOCKET ? drain : serve, is_socket, sock);
	if (pid < 0)
		return (int)pid;
	h->server = pid;
	/* coresink's server is measured as systemd-coredumpd is, by a cgroup of its own (none on cgroup v1). */
	if (h->kind == HANDLER_CORESINK) {
		char name[32];

		(void) snprintf(name, sizeof(name), "coresink-bench.h%d", index);
		(void) cgacct_adopt(name, pid, h->cgroup, sizeof(h->cgroup));
	}
	return 0;
}

/* Stops a socket-mode handler's server. */
void server_stop(struct handler *h)
{
	stop_server(h->server);
	h->server = 0;
	if (h->kind == HANDLER_CORESINK)
		cgacct_drop(h->cgroup);
}
