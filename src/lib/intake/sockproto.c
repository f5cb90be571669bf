/*
 * sockproto.c: the exchange on the coredump socket (@@, Linux 6.17) before a byte is dumped. The kernel sends a
 * request (its size first: a later kernel's may be longer), the server answers with an ack, and the kernel says
 * with a 4-byte mark whether it took it. Then the core follows, or nothing when the ack was REJECT.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "base.h"
#include "sockproto.h"

/* systemd's bound on a request: a kernel that sends more is not one this server knows. */
#define REQUEST_MAX 4096u

/* Reads exactly len bytes (io.c's loop); -EPROTO when the kernel closed before. */
static int read_exact(int fd, void *buf, size_t len)
{
	ssize_t n = io_read_full(fd, buf, len, NULL);

	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EPROTO;
}

/* Looks at the request's first field, its size, without taking it from the socket. */
static int peek_size(int fd, uint32_t *size)
{
	ssize_t n;

	do
		n = recv(fd, size, sizeof(*size), MSG_PEEK | MSG_WAITALL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*size) ? 0 : -EPROTO;
}

/*
 * Reads the kernel's request into req: its VER0 part, the rest read and ignored. 0, -EPROTO for a request that
 * is not one (too short, too long, cut), or -errno.
 */
int sockproto_request(int fd, struct coredump_req *req)
{
	unsigned char buf[REQUEST_MAX];
	uint32_t size;
	int r;

	r = peek_size(fd, &size);
	if (r < 0)
		return r;
	if (size < COREDUMP_REQ_SIZE_VER0 || size > REQUEST_MAX)
		return -EPROTO;
	r = read_exact(fd, buf, size);
	if (r < 0)
		return r;
	memcpy(req, buf, sizeof(*req));
	/* The ack is VER0's 16 bytes, which every kernel takes (any size from VER0 up to the size_ack it sends). */
	if (req->size_ack < COREDUMP_ACK_SIZE_VER0)
		return -EPROTO;
	/* The kernel must support what every answer needs: dumping to the socket, rejecting, and waiting. */
	if ((req->mask & (COREDUMP_KERNEL | COREDUMP_REJECT | COREDUMP_WAIT)) !=
	    (COREDUMP_KERNEL | COREDUMP_REJECT | COREDUMP_WAIT))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * Sends the ack with mask and reads the kernel's mark into *mark. 0 when the kernel took it, -EPROTO when it
 * refused it (*mark says why), or -errno.
 */
int sockproto_ack(int fd, uint64_t mask, uint32_t *mark)
{
	/*
	 * Only the flags this server knows, whatever a later kernel's request offers (COREDUMP_RECORDS and the like):
	 * the kernel refuses an ack with a flag it did not offer, and this server could not honour one it does not know.
	 */
	struct coredump_ack ack = { .size = COREDUMP_ACK_SIZE_VER0, .mask = mask & COREDUMP_KNOWN };
	int r;

	*mark = UINT32_MAX;
	r = io_write_full(fd, &ack, sizeof(ack));
	if (r < 0)
		return r;
	r = read_exact(fd, mark, sizeof(*mark));
	if (r < 0)
		return r;
	return *mark == COREDUMP_MARK_REQACK ? 0 : -EPROTO;
}

const char *sockproto_mark_to_string(uint32_t mark)
{
	static const char *const names[] = {
		[COREDUMP_MARK_REQACK] = "accepted", [COREDUMP_MARK_MINSIZE] = "ack too short",
		[COREDUMP_MARK_MAXSIZE] = "ack too long", [COREDUMP_MARK_UNSUPPORTED] = "unsupported flags",
		[COREDUMP_MARK_CONFLICTING] = "conflicting flags",
	};

	return mark < ELEMENTSOF(names) ? names[mark] : "no mark";
}
