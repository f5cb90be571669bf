/*
 * nullsock.c: the ceiling of socket mode, coresink-bench --drain-socket PATH: a server on the kernel's coredump
 * socket that answers each request as coresink does (KERNEL | WAIT), then drains the core into /dev/null and
 * closes, one crash at a time. What it takes is what the kernel can send through a socket when nothing is stored:
 * coresink's socket mode is judged against it, as pipe mode is against --drain. With "read", it drains by read(2)
 * into a 1 MiB buffer instead of splice(2), to show whether the server's way of reading matters.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base.h"
#include "intake.h"
#include "nullsock.h"
#include "write.h"

/* A listening socket at path, for the kernel (root) alone. fd or -errno. */
static int listen_at(const char *path)
{
	struct sockaddr_un sa;
	int fd = io_unix_socket(path, SOCK_STREAM, &sa);

	if (fd < 0)
		return fd;
	(void) unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, 0600) < 0 || listen(fd, 16) < 0) {
		int r = -errno;

		(void) close(fd);
		return r;
	}
	return fd;
}

/* One crash: the request, the ack, the core into /dev/null. 0 or -errno. */
static int drain_one(int conn, int null, const struct engine_opts *o)
{
	struct coredump_req req;
	struct engine_stats st;
	uint32_t mark;
	int r = sockproto_request(conn, &req);

	if (r == 0)
		r = sockproto_ack(conn, COREDUMP_KERNEL | COREDUMP_WAIT, &mark);
	if (r == 0)
		r = engine_copy(conn, null, o, &st);
	return r;
}

/* Serves until killed (the bench stops it with SIGTERM). An exit status. */
int drain_socket(const char *path, bool by_read)
{
	struct engine_opts o;
	int fd = listen_at(path), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || null < 0)
		return EXIT_SYSTEM;
	engine_defaults(&o);
	o.strategy = by_read ? STRATEGY_READWRITE : STRATEGY_SPLICE;
	o.check_space = false;
	o.hygiene = false;
	o.sparse = false;
	o.prealloc = PREALLOC_NONE;
	for (;;) {
		int conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return EXIT_SYSTEM;
		}
		/* A crash the kernel did not finish sending is still let go when the connection closes. */
		(void) drain_one(conn, null, &o);
		(void) close(conn);
	}
}
