/*
 * fetchprobe.c: stands in for the fetch step's program (coresink --fetch-debuginfo) in check_fetch: run by the very
 * same fetch_run() (the sandbox's exec mode, as coresink-debuginfod, no environment), it confines itself with the
 * very same confine_fetch(), then says what it could do: read the core, the crash's /proc, a root 0600 file; write
 * its cache and anywhere else; connect to a port on 127.0.0.1; and the ways out a hostile server's answer would
 * try: a unix socket (journald's, an abstract one, or by a pair of them: a datagram pair's sendto() and connect()
 * to the test's listeners), a socket it was given, the host's System V shared memory, a user namespace, a session
 * of its own, a child process, a signal to another process. It says it in the one line the step's program writes
 * for a module ("missing debuginfo ID WHAT=RESULT ..."), so that fetch_run() passes it on as it would the step's.
 * usage (as fetch_run() calls it): fetchprobe --fetch-debuginfo CACHE "CORE PID SECRET PORT LISTENER" MS MAX KEEP ROOM KIND:ID
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sandbox/confine.h"

static void try_open(const char *what, const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	printf(" %s=%s", what, fd >= 0 ? "ok" : strerrorname_np(errno));
	if (fd >= 0)
		(void) close(fd);
}

static void say(const char *what, int r)
{
	printf(" %s=%s", what, r >= 0 ? "ok" : strerrorname_np(errno));
}

/*
 * A socket of the host's reached by address from a pair of unix sockets (the test's listeners: a datagram socket at
 * path, and one of the abstract name "coresink-fetchprobe-listen"): socketpair of each kind, then sendto() and
 * connect() of an end. Each "ok" is a hole; a stream pair is libcurl's, and must be made (sp-stream=ok).
 */
static void pairs(const char *path)
{
	struct sockaddr_un at = { .sun_family = AF_UNIX }, ab = { .sun_family = AF_UNIX };
	static const struct { const char *name; int type; } kinds[] = {
		{ "sp-dgram", SOCK_DGRAM }, { "sp-seqpacket", SOCK_SEQPACKET }, { "sp-stream", SOCK_STREAM | SOCK_CLOEXEC },
	};
	char what[64];
	int sv[2];

	(void) snprintf(at.sun_path, sizeof(at.sun_path), "%s", path);
	memcpy(ab.sun_path, "\0coresink-fetchprobe-listen", sizeof("\0coresink-fetchprobe-listen"));
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		int r = socketpair(AF_UNIX, kinds[i].type, 0, sv);

		say(kinds[i].name, r);
		if (r < 0)
			continue;
		(void) snprintf(what, sizeof(what), "%s-sendto-path", kinds[i].name);
		say(what, (int)sendto(sv[0], "probe-path", 10, 0, (struct sockaddr *)&at, sizeof(at)));
		(void) snprintf(what, sizeof(what), "%s-sendto-abstract", kinds[i].name);
		say(what, (int)sendto(sv[0], "probe-abstract", 14, 0, (struct sockaddr *)&ab,
				      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + sizeof("\0coresink-fetchprobe-listen") - 1)));
		(void) snprintf(what, sizeof(what), "%s-connect", kinds[i].name);
		say(what, connect(sv[1], (struct sockaddr *)&at, sizeof(at)));
		(void) close(sv[0]), (void) close(sv[1]);
	}
}

/* The sockets it was given (none: an inherited one could be sent from with an address): "inherited=N". */
static void inherited(void)
{
	struct stat st;
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
	printf(" inherited-sockets=%d", n);
}

/* The ways out: each "ok" is a hole. */
static void escapes(pid_t other)
{
	struct sockaddr_un path = { .sun_family = AF_UNIX, .sun_path = "/run/systemd/journal/socket" };
	struct sockaddr_un abstract = { .sun_family = AF_UNIX, .sun_path = "\0coresink-fetchprobe" };
	int u = socket(AF_UNIX, SOCK_DGRAM, 0);
	pid_t child;

	say("unix", u >= 0 ? connect(u, (struct sockaddr *)&path, sizeof(path)) : -1);
	say("abstract", u >= 0 ? connect(u, (struct sockaddr *)&abstract, sizeof(abstract)) : -1);
	say("sysv-shm", shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600));
	say("userns", unshare(CLONE_NEWUSER));
	say("setsid", setsid());
	say("kill-other", kill(other, 0));
	child = fork();
	if (child == 0)
		_exit(0);
	say("fork", child);
}

int main(int argc, char **argv)
{
	char core[4096], secret[4096], proc[64], file[4200], listen[108];
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned applied;
	int pid, port, s;

	if (argc < 9 || sscanf(argv[3], "%4095s %d %4095s %d %107s", core, &pid, secret, &port, listen) != 5)
		return 100;
	printf("missing debuginfo %s", strchr(argv[8], ':') ? strchr(argv[8], ':') + 1 : "?");
	if (confine_fetch(argv[2], &applied) < 0) {
		printf(" confine=failed\n");
		(void) fflush(stdout);
		_exit(1);
	}
	printf(" confined=%u", applied);
	inherited();
	try_open("core", core, O_RDONLY);
	(void) snprintf(proc, sizeof(proc), "/proc/%d/status", pid);
	try_open("proc", proc, O_RDONLY);
	try_open("secret", secret, O_RDONLY);
	(void) snprintf(file, sizeof(file), "%s/written", argv[2]);
	try_open("cache-write", file, O_WRONLY | O_CREAT);
	try_open("tmp-write", "/var/tmp/coresink-fetchprobe", O_WRONLY | O_CREAT);
	a.sin_port = htons((uint16_t)port);
	s = socket(AF_INET, SOCK_STREAM, 0);
	printf(" net=%s", s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 ? "ok" : strerrorname_np(errno));
	escapes(pid);
	pairs(listen);
	putchar('\n');
	/* Out at once: built with ASan, its leak check at exit would want the /proc this very step has hidden. */
	(void) fflush(stdout);
	_exit(0);
}
