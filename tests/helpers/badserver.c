/*
 * badserver.c: a debuginfod server that misbehaves, for t-debuginfod, on 127.0.0.1:PORT; it prints "ready" once it
 * listens, and serves each connection in a child of its own until killed.
 *   hang:  accepts and never answers;
 *   slow:  answers 200 for a body of 1 MiB, one byte a second;
 *   wrong: answers every request with FILE (a debug file of another build-id than the one asked for);
 *   chunked: answers 200 with a chunked body that never ends, as fast as it is read (no length said);
 *   big: answers 200 with a Content-Length of 1 GiB, and sends it as fast as it is read.
 * usage: badserver hang|slow|wrong|chunked|big PORT [FILE]
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads the request up to the end of its headers. */
static void read_request(int c)
{
	char buf[8192];
	size_t n = 0;
	ssize_t r;

	while (n < sizeof(buf) - 1 && (r = read(c, buf + n, sizeof(buf) - 1 - n)) > 0) {
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			return;
	}
}

static void serve(int c, const char *mode, const char *file)
{
	char head[256];

	if (strcmp(mode, "hang") == 0) {
		pause();
		return;
	}
	read_request(c);
	if (strcmp(mode, "chunked") == 0 || strcmp(mode, "big") == 0) {
		static char zeros[65536];
		bool chunked = strcmp(mode, "chunked") == 0;

		if (chunked)
			dprintf(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
		else
			dprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\n\r\n", 1LL << 30);
		while ((!chunked || dprintf(c, "%zx\r\n", sizeof(zeros)) > 0) &&
		       write(c, zeros, sizeof(zeros)) == (ssize_t)sizeof(zeros) && (!chunked || write(c, "\r\n", 2) == 2))
			;
		return;
	}
	if (strcmp(mode, "slow") == 0) {
		dprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", 1 << 20);
		while (write(c, "", 1) == 1)
			sleep(1);
		return;
	}
	{
		int fd = open(file, O_RDONLY);
		struct stat st;
		char buf[65536];
		ssize_t n;

		if (fd < 0 || fstat(fd, &st) < 0)
			return;
		(void) snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\n\r\n",
				(long long)st.st_size);
		if (write(c, head, strlen(head)) < 0)
			return;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write(c, buf, (size_t)n) != n)
				return;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	pid_t server;

	if (argc < 3 || s < 0)
		return fprintf(stderr, "usage: badserver hang|slow|wrong|chunked|big PORT [FILE]\n"), 100;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_IGN);
	a.sin_port = htons((uint16_t)atoi(argv[2]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	(void) setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 64) < 0)
		return perror("bind"), 111;
	server = getpid();
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int c = accept(s, NULL, NULL);

		if (c < 0)
			continue;
		if (fork() == 0) {
			/* Ends with the server the test stops: a "hang" child would pause for good otherwise. */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != server)
				_exit(0);
			(void) close(s);
			serve(c, argv[1], argc > 3 ? argv[3] : "");
			_exit(0);
		}
		(void) close(c);
	}
}
