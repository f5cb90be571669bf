/*
 * serve.c: coresink --serve, the server of the kernel's coredump socket (kernel.core_pattern "@@PATH", Linux
 * 6.17). The listening socket comes from systemd (socket activation) or is bound here at Socket=. Each connection
 * is one crash, handled in a process of its own by capture_socket() as pipe mode handles one: up to
 * SocketMaxParallel at once, each killed after SocketTimeoutSec. No user takes capture from the others: a user's
 * crashes hold at most SocketMaxParallelPerUser slots; more of theirs wait here, accepted (their tasks held by the
 * kernel), while other users' crashes take the free slots, and past WAITING_PER_USER waiting a user's next crash is
 * refused and said. The server itself only accepts, forks, reaps and keeps time; it runs until SIGTERM or SIGINT,
 * then lets the crashes in hand finish.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "flow.h"
#include "config.h"
#include "ledger.h"
#include "report.h"
#include "notify.h"
#include "serve.h"

/* The most SocketMaxParallel allows. */
#define SLOTS_MAX 256
/*
 * Crashes accepted and waiting for a slot, of all users; of one user, past which that user's next crash is refused:
 * a storm of one user's (a service's restarts) waits whole, and a flood leaves room for the others' (an fd each).
 */
#define WAITING_MAX 256
#define WAITING_PER_USER 192

/* One crash in hand: its handler, the crashing task (for the entry, should the handler be killed), its deadline. */
struct slot {
	pid_t child;
	pid_t task;
	uid_t uid;
	gid_t gid;
	uint64_t time;
	uint64_t deadline_ms;
	bool killed;
};

/* A crash accepted, waiting for a slot its user may take: the connection, and who is on it. */
struct waiting {
	int conn;
	pid_t task;
	uid_t uid;
	gid_t gid;
	uint64_t time;
};

struct server {
	struct config c;
	const char *config;
	bool named;
	int listen_fd;
	int sig_fd;
	bool bound;            /* the socket was bound here, not passed by systemd: removed at exit */
	struct slot slots[SLOTS_MAX];
	unsigned active;
	struct waiting waiting[WAITING_MAX];  /* oldest first */
	unsigned n_waiting;
	long backlog;          /* the listen queue's length: after a stop, at most this many more are taken */
	long drain;            /* after a stop: how many queued crashes may still be taken */
	const char *netdoor;   /* the door to the network (CORESINK_NETDOOR, coresink.service's): NULL, this has one */
};

/* The server's own lines: to the journal (the kernel log without it) and to stderr, unless that is the journal. */
static void say(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int priority, const char *fmt, ...)
{
	char msg[512];
	struct fields f;
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!journal_is_stderr())
		fprintf(stderr, "coresink: %s\n", msg);
	fields_init(&f, priority);
	fields_add(&f, "MESSAGE=%s", msg);
	(void) journal_send(&f);
	fields_free(&f);
}

/*
 * Whether dir is root's own real directory, writable by no one else; or, with sticky, one whose sticky bit keeps
 * others from renaming or removing what root has in it (/tmp, for a root directory of root's own beneath). 0,
 * -EPERM, or -errno.
 */
static int root_only_dir(const char *dir, bool sticky)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) && st.st_uid == 0 && (!(st.st_mode & 022) || (sticky && (st.st_mode & S_ISVTX))) ?
		       0 : -EPERM;
}

/*
 * The directory the socket is bound in: created 0700 when missing, and refused unless it and every directory above
 * it are root's own, real directories, writable by no one else (above it, sticky will do); otherwise someone else
 * could rename a directory on the way and put another socket where the kernel connects.
 */
static int socket_dir(const char *path)
{
	char dir[SOCKET_PATH_MAX], *slash;
	int r;

	(void) snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return dir[0] == '/' ? root_only_dir("/", false) : -EPERM;
	*slash = '\0';
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	r = root_only_dir(dir, false);
	for (slash = strrchr(dir, '/'); r == 0 && slash; slash = strrchr(dir, '/')) {
		*slash = '\0';
		r = root_only_dir(dir[0] ? dir : "/", true);
	}
	return r;
}

/* Removes a socket file left by a server that is gone (nothing accepts on it); a live one keeps it. 0 or -errno. */
static int clear_stale(const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, r;

	if (lstat(sa->sun_path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 ? -EADDRINUSE : 0;
	(void) close(fd);
	if (r == 0 && unlink(sa->sun_path) < 0)
		r = -errno;
	return r;
}

/*
 * Binds Socket= and listens. The backlog asked for is the largest; the kernel caps it at net.core.somaxconn, and
 * drops a crash it cannot queue ("receive queue full" in the kernel log). The listening fd, or -errno.
 */
static int bind_socket(struct server *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, r;

	(void) snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", s->c.socket);
	r = socket_dir(sa.sun_path);
	if (r == 0)
		r = clear_stale(&sa);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* 0600 from the start, not chmod'ed after: only root may ever connect. */
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, INT_MAX) < 0 ? -errno : 0;
	umask(old);
	if (r < 0) {
		(void) close(fd);
		return r;
	}
	s->bound = true;
	return fd;
}

/* The socket systemd passed (coresink.socket), or -ENOENT when none was; -EINVAL for anything else passed. */
static int passed_socket(void)
{
	int n = sd_listen_fds(1);

	if (n <= 0)
		return n < 0 ? n : -ENOENT;
	if (n != 1 || sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) <= 0)
		return -EINVAL;
	return SD_LISTEN_FDS_START;
}

static long somaxconn(void)
{
	FILE *f = fopen("/proc/sys/net/core/somaxconn", "re");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		(void) fclose(f);
	}
	return n;
}

/* SIGCHLD, SIGTERM, SIGINT and SIGHUP arrive through a signalfd; handlers get the default mask back. */
static int signals(struct server *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	/* A kernel that closes its end early must not kill a handler writing its ack. */
	(void) signal(SIGPIPE, SIG_IGN);
	s->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return s->sig_fd < 0 ? -errno : 0;
}

static struct slot *free_slot(struct server *s)
{
	for (unsigned i = 0; i < s->c.socket_parallel; i++)
		if (s->slots[i].child == 0)
			return &s->slots[i];
	return NULL;
}

/* The handler's process: one crash, then exit. It never returns. */
static void handle(struct server *s, int conn, uint64_t time)
{
	sigset_t none;
	char entry[64] = "";
	int r;

	sigemptyset(&none);
	(void) sigprocmask(SIG_SETMASK, &none, NULL);
	(void) close(s->listen_fd);
	(void) close(s->sig_fd);
	r = capture_socket(s->config, s->named, conn, time, s->netdoor, entry, sizeof(entry));
	/* Its slot is given back when this process ends: the notifiers are the door's, or a process's of their own. */
	notify_after(s->config, s->named, entry, s->netdoor);
	_exit(r < 0 ? EXIT_SYSTEM : 0);
}

/*
 * fork(), asked again after a moment where it failed for want of a process or of memory (EAGAIN, ENOMEM: the pid
 * or task limit, a machine in trouble), which passes: the crash waits for its handler, the task held meanwhile.
 */
static pid_t fork_handler(void)
{
	static const long wait_ms[] = { 10, 100 };
	pid_t pid = fork();

	for (size_t i = 0; pid < 0 && (errno == EAGAIN || errno == ENOMEM) && i < ELEMENTSOF(wait_ms); i++) {
		const struct timespec ts = { 0, wait_ms[i] * 1000000L };

		(void) nanosleep(&ts, NULL);
		pid = fork();
	}
	return pid;
}

/* SocketMaxParallelPerUser, as it applies: 0 is half of SocketMaxParallel, at least one. */
static unsigned per_user(const struct server *s)
{
	uint64_t n = s->c.socket_parallel_per_user ? s->c.socket_parallel_per_user : s->c.socket_parallel / 2;

	n = n < 1 ? 1 : n;
	return (unsigned)(n < s->c.socket_parallel ? n : s->c.socket_parallel);
}

/* The crashes of uid in slots (active) and waiting. */
static void of_user(const struct server *s, uid_t uid, unsigned *active, unsigned *waiting)
{
	*active = *waiting = 0;
	for (unsigned i = 0; i < s->c.socket_parallel; i++)
		*active += s->slots[i].child > 0 && s->slots[i].uid == uid;
	for (unsigned i = 0; i < s->n_waiting; i++)
		*waiting += s->waiting[i].uid == uid;
}

/* Forks the handler of crash w in slot sl; the connection is the handler's from here. */
static void start(struct server *s, struct slot *sl, const struct waiting *w)
{
	pid_t pid;

	*sl = (struct slot) { .task = w->task, .uid = w->uid, .gid = w->gid, .time = w->time,
			      .deadline_ms = clock_ms() + s->c.socket_timeout_ms };
	pid = fork_handler();
	if (pid == 0)
		handle(s, w->conn, sl->time);
	(void) close(w->conn);
	if (pid < 0) {
		/* Closing the connection lets the task go without a core: its entry says so (EAGAIN, ENOMEM). */
		int e = errno;
		const struct ledger_crash c = { .pid = w->task, .uid = w->uid, .gid = w->gid, .time = w->time };

		say(LOG_ERR, "no process for the crash of pid %d: %s; it was let go without a core", (int)w->task,
		    strerror(e));
		capture_refused(&s->c, &c, "starting the capture's process", -e);
		sl->child = 0;
		return;
	}
	sl->child = pid;
	s->active++;
}

/*
 * Gives free slots to the crashes waiting, oldest first among those whose user holds fewer than
 * SocketMaxParallelPerUser slots: one user's crashes never keep another's from a free slot.
 */
static void dispatch(struct server *s)
{
	struct slot *sl;

	for (unsigned i = 0; i < s->n_waiting && (sl = free_slot(s));) {
		unsigned active, waiting;

		of_user(s, s->waiting[i].uid, &active, &waiting);
		if (active >= per_user(s)) {
			i++;
			continue;
		}
		start(s, sl, &s->waiting[i]);
		memmove(&s->waiting[i], &s->waiting[i + 1], (s->n_waiting - i - 1) * sizeof(s->waiting[0]));
		s->n_waiting--;
	}
}

/*
 * A crash its user may not queue: WAITING_PER_USER of theirs wait already, behind their slots. Its connection is
 * closed, which lets the task go without a core, and its entry says why.
 */
static void refuse(const struct server *s, const struct waiting *w, unsigned active, unsigned waiting)
{
	const struct ledger_crash c = { .pid = w->task, .uid = w->uid, .gid = w->gid, .time = w->time };
	char step[160];

	(void) close(w->conn);
	(void) snprintf(step, sizeof(step), "waiting for a slot (uid %u has %u crash(es) in hand, its "
			"SocketMaxParallelPerUser, and %u waiting)", (unsigned)w->uid, active, waiting);
	say(LOG_WARNING, "the crash of pid %d of uid %u was refused: %s", (int)w->task, (unsigned)w->uid, step);
	capture_refused(&s->c, &c, step, -EUSERS);
}

/* Accepts one connection: it waits for a slot (dispatch), or is refused where its user has too many waiting. */
static void take(struct server *s)
{
	struct ucred uc = { 0 };
	socklen_t len = sizeof(uc);
	unsigned active, waiting;
	struct waiting w;
	int conn = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (conn < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			say(LOG_ERR, "accepting a connection: %s", strerror(errno));
		return;
	}
	(void) getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &uc, &len);
	w = (struct waiting) { .conn = conn, .task = uc.pid, .uid = uc.uid, .gid = uc.gid,
			       .time = (uint64_t)time(NULL) };
	of_user(s, w.uid, &active, &waiting);
	if (waiting >= WAITING_PER_USER && active >= per_user(s)) {
		refuse(s, &w, active, waiting);
		return;
	}
	s->waiting[s->n_waiting++] = w;
}

/* The entry of a crash whose handler was killed at the deadline or died without saying it wrote one. */
static void report_lost_slot(const struct server *s, const struct slot *sl, int status)
{
	const struct ledger_crash c = { .pid = sl->task, .uid = sl->uid, .gid = sl->gid, .time = sl->time };
	int signo = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	char step[96];

	if (sl->killed)
		(void) snprintf(step, sizeof(step), "the capture (SocketTimeoutSec reached)");
	else if (signo > 0)
		(void) snprintf(step, sizeof(step), "the capture's process (killed by SIG%s)",
				sigabbrev_np(signo) ? sigabbrev_np(signo) : "?");
	else
		(void) snprintf(step, sizeof(step), "the capture's process (it ended without an entry)");
	capture_lost(&s->c, sl->child, &c, step, sl->killed ? -ETIMEDOUT : -ECANCELED);
}

static void reap(struct server *s)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (unsigned i = 0; i < s->c.socket_parallel; i++) {
			struct slot *sl = &s->slots[i];

			if (sl->child != pid)
				continue;
			if (sl->killed || WIFSIGNALED(status))
				report_lost_slot(s, sl, status);
			sl->child = 0;
			s->active--;
		}
	}
}

/* Kills handlers past their deadline; returns the time to the next deadline in ms, -1 for none. */
static int deadlines(struct server *s)
{
	uint64_t now = clock_ms(), next = UINT64_MAX;

	for (unsigned i = 0; i < s->c.socket_parallel; i++) {
		struct slot *sl = &s->slots[i];

		if (sl->child == 0 || sl->killed)
			continue;
		if (sl->deadline_ms <= now) {
			say(LOG_ERR, "the capture of the crash of pid %d ran past SocketTimeoutSec: killed", (int)sl->task);
			/* Its analysis, if one runs, dies with it (PR_SET_PDEATHSIG, sandbox.c). */
			(void) kill(sl->child, SIGKILL);
			sl->killed = true;
		} else if (sl->deadline_ms - now < next) {
			next = sl->deadline_ms - now;
		}
	}
	return next == UINT64_MAX ? -1 : (int)(next > INT_MAX ? INT_MAX : next);
}

/* Reads pending signals: reaps, and returns true once asked to stop. */
static bool read_signals(struct server *s)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(s->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			reap(s);
		else
			stop = true;
	}
	reap(s);
	return stop;
}

/*
 * Asked to stop, the server still takes the crashes queued on the socket, then finishes all in hand: when systemd
 * stops coresink.socket it closes the socket once the service is gone, and the kernel would let every task still
 * queued go without a core. (A restart of the service alone keeps the queue; taking it first only delays the new
 * server.) At most one queue's worth more, so that a storm cannot hold the stop for good.
 */
static void loop(struct server *s)
{
	bool stop = false;

	while (!stop || s->active > 0 || s->drain > 0 || s->n_waiting > 0) {
		struct pollfd p[2] = { { .fd = s->sig_fd, .events = POLLIN }, { .fd = s->listen_fd, .events = POLLIN } };
		/*
		 * At the bound of those waiting here, connections wait in the listen queue: the kernel holds their tasks
		 * meanwhile. Below it each is taken, so that a user's storm does not keep another's crash queued behind it.
		 */
		bool listening = s->n_waiting < WAITING_MAX && (!stop || s->drain > 0);
		int r;

		dispatch(s);
		r = poll(p, listening ? 2 : 1, stop && listening ? 0 : deadlines(s));

		if (r < 0 && errno != EINTR) {
			say(LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		if (r > 0 && (p[0].revents & POLLIN) && read_signals(s) && !stop) {
			stop = true;
			s->drain = s->backlog > 0 ? s->backlog : SOMAXCONN;
			say(LOG_INFO, "stopping: %u crash(es) in hand and those queued are finished first", s->active);
			continue;
		}
		if (listening && r >= 0 && !(p[1].revents & POLLIN)) {
			/* Stopping, and nothing more is queued. */
			if (stop)
				s->drain = 0;
			continue;
		}
		if (listening && r > 0) {
			take(s);
			if (stop)
				s->drain--;
		}
	}
}

static int listen_socket(struct server *s)
{
	int fd = passed_socket();

	if (fd == -ENOENT)
		return bind_socket(s);
	return fd;
}

/* coresink --serve. 0 after SIGTERM, EXIT_SYSTEM when it cannot listen. */
int serve_main(const char *config, bool named)
{
	static struct server s;
	struct diag d = { 0 };

	s.config = config;
	s.named = named;
	s.sig_fd = -1;
	/* Under coresink.service, which keeps the network from the server: the fetch step and uploads go through the
	   door it names (netdoor.c), coresink-net.socket. The one word of the environment read here. */
	s.netdoor = getenv("CORESINK_NETDOOR");
	if (s.netdoor && !s.netdoor[0])
		s.netdoor = NULL;
	s.backlog = somaxconn();
	config_read(&s.c, config, named, &d);
	if (!journal_is_stderr())
		diag_print(&d, stderr, "coresink: ");
	(void) report_diag(&d, config, "defaults used, serving goes on");
	s.listen_fd = listen_socket(&s);
	if (s.listen_fd < 0) {
		say(LOG_ERR, "cannot listen on %s: %s", s.c.socket,
		    s.listen_fd == -EPERM ? "its directory, or one above it, is not root's alone" :
		    s.listen_fd == -EADDRINUSE ? "another server listens there" :
		    s.listen_fd == -EEXIST ? "something that is not a socket is there" : strerror(-s.listen_fd));
		return EXIT_SYSTEM;
	}
	if (signals(&s) < 0) {
		say(LOG_ERR, "signals: %s", strerror(errno));
		return EXIT_SYSTEM;
	}
	say(LOG_INFO, "serving the coredump socket %s: up to %llu crash(es) at once, %ld more queued "
	    "(net.core.somaxconn); the network %s%s", s.bound ? s.c.socket : "passed by systemd",
	    (unsigned long long)s.c.socket_parallel, s.backlog, s.netdoor ? "through the door " : "of this process",
	    s.netdoor ? s.netdoor : "");
	(void) sd_notify(0, "READY=1");
	loop(&s);
	(void) sd_notify(0, "STOPPING=1");
	if (s.bound)
		(void) unlink(s.c.socket);
	(void) close(s.listen_fd);
	return 0;
}
