/*
 * withpidfd: runs a command with a pidfd of PID as its fd 3, as Linux 6.16 hands one to a core_pattern handler
 * (%F). The end-to-end tests run the handler directly for a live process this way, as the kernel would.
 * usage: withpidfd PID COMMAND [ARG]...
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: withpidfd PID COMMAND [ARG]...\n");
		return 100;
	}
	fd = (int)syscall(SYS_pidfd_open, (pid_t)atoi(argv[1]), 0);
	/* A pidfd comes close-on-exec: dup2 clears that, and so must fcntl where it is fd 3 already. */
	if (fd < 0 || (fd != 3 && (dup2(fd, 3) < 0 || close(fd) < 0)) || fcntl(3, F_SETFD, 0) < 0) {
		perror("withpidfd");
		return 111;
	}
	execvp(argv[2], argv + 2);
	perror("withpidfd: exec");
	return 111;
}
