/*
 * sockpeer.c: an ordinary process that connects to the AF_UNIX stream socket at PATH, as anything with access to
 * the coredump socket could: it sends TEXT (a forged request, say), then reads until the server closes, and prints
 * how many bytes it got back. Exit 0 once closed, 111 when it cannot connect.
 * usage: sockpeer PATH [TEXT]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[4096];
	long total = 0;
	ssize_t n;
	int fd;

	if (argc < 2 || argc > 3 || strlen(argv[1]) >= sizeof(a.sun_path))
		return fprintf(stderr, "usage: sockpeer PATH [TEXT]\n"), 100;
	strcpy(a.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return perror(argv[1]), 111;
	/* A server that refuses at once may close before the text is written: that is an answer of nothing, not an error. */
	signal(SIGPIPE, SIG_IGN);
	if (argc == 3 && write(fd, argv[2], strlen(argv[2])) < 0 && errno != EPIPE && errno != ECONNRESET)
		return perror("write"), 111;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	printf("%ld\n", total);
	return 0;
}
