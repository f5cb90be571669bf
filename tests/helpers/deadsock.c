/*
 * deadsock.c: leaves an AF_UNIX datagram socket at PATH that nobody listens on, as a crashed journald leaves its
 * socket behind: connect() and sendmsg() to it fail with ECONNREFUSED.
 * usage: deadsock PATH
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(a.sun_path))
		return fprintf(stderr, "usage: deadsock PATH\n"), 100;
	strcpy(a.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return perror(argv[1]), 111;
	/* Exiting closes the socket; the file stays, and nothing answers at it. */
	return 0;
}
