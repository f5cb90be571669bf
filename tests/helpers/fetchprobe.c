/*
 * fetchprobe.c: stands in for the fetch step's program (coresink --fetch-debuginfo) in check_fetch: run by the very
 * same fetch_run() (the sandbox's exec mode, as coresink-debuginfod, no environment), it confines itself with the
 * very same confine_fetch(), then says what it could do: read the core, the crash's /proc, a root 0600 file; write
 * its cache and anywhere else; connect to a port on 127.0.0.1; and the ways out a hostile server's answer would
 * try: a unix socket (journald's, an abstract one), the host's System V shared memory, a user namespace, a session
 * of its own, a child process, a signal to another process. It says it in the one line the step's program writes
 * for a module ("missing debuginfo ID WHAT=RESULT ..."), so that fetch_run() passes it on as it would the step's.
 * usage (as fetch_run() calls it): fetchprobe --fetch-debuginfo CACHE "CORE PID SECRET PORT" MS MAX KEEP KIND:ID
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
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
	char core[4096], secret[4096], proc[64], file[4200];
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned applied;
	int pid, port, s;

	if (argc < 8 || sscanf(argv[3], "%4095s %d %4095s %d", core, &pid, secret, &port) != 4)
		return 100;
	printf("missing debuginfo %s", strchr(argv[7], ':') ? strchr(argv[7], ':') + 1 : "?");
	if (confine_fetch(argv[2], &applied) < 0) {
		printf(" confine=failed\n");
		(void) fflush(stdout);
		_exit(1);
	}
	printf(" confined=%u", applied);
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
	putchar('\n');
	/* Out at once: built with ASan, its leak check at exit would want the /proc this very step has hidden. */
	(void) fflush(stdout);
	_exit(0);
}
