/*
 * netdoor.c: the door to the network, for socket mode under its units: its wire, and the capture's side of it (the
 * door's own side is door.c). coresink.service keeps no network of its own
 * (PrivateNetwork=, IPAddressDeny=, AF_UNIX only): it reads hostile cores, and nothing of a capture needs a
 * server. What does, the fetch step (DebuginfodURLs=) and ExecUpload=, is asked of `coresink --net-door`, which
 * systemd starts as coresink-net@.service for each connection to coresink-net.socket (root's alone: /run/coresink
 * is 0700, the socket 0600), with the network and none of the crash. A request says what, never how or where: the
 * build-ids a crash's modules need (the servers, the deadline and the bounds are the door's own configuration), or
 * the name of a stored core to send (in the door's own Directory=, its [Rule] read from the core as a retry reads
 * it) with its entry's fields for the command, or the entry id of a crash whose notifiers are to run (the door reads
 * the entry from the journal). The reply is one line of what came of it, for the crash's entry.
 * Wire: a kind byte ('F' fetch, 'U' upload, 'N' notify), a count, and that many items, each a 32-bit length and its bytes; the
 * reply a length and its bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base.h"
#include "netdoor.h"

#define ITEM_MAX (1u << 20)         /* one field: the message with its trace is the longest */
#define REQUEST_MAX (8u << 20)      /* all of them */
#define REPLY_MAX 4096
#define SLACK_MS 5000               /* the door's start and its own end, past the step's deadline */

/* Writes one item: its length, then its bytes. 0 or -errno. */
static int put_item(int fd, const void *p, uint32_t n)
{
	int r = io_write_full(fd, &n, sizeof(n));

	return r < 0 ? r : io_write_full(fd, p, n);
}

/* Reads exactly n bytes, or fails (-EPROTO at a short read). */
static int get_exact(int fd, void *p, size_t n)
{
	ssize_t got = io_read_full(fd, p, n, NULL);

	return got < 0 ? (int)got : (size_t)got == n ? 0 : -EPROTO;
}

/* One item into a new NUL-terminated string (the bytes may hold NULs; *len has them all), within *left. */
static int get_item(int fd, char **item, uint32_t *len, size_t *left)
{
	int r = get_exact(fd, len, sizeof(*len));

	if (r < 0)
		return r;
	if (*len > ITEM_MAX || *len > *left)
		return -E2BIG;
	*left -= *len;
	*item = malloc((size_t)*len + 1);
	if (!*item)
		return -ENOMEM;
	r = get_exact(fd, *item, *len);
	(*item)[*len] = '\0';
	if (r < 0) {
		free(*item);
		*item = NULL;
	}
	return r;
}

/* A connection to the door at path, whose replies are waited for timeout_ms at most. The fd or -errno. */
static int door_open(const char *path, unsigned timeout_ms)
{
	struct sockaddr_un sa;
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000 };
	_cleanup_close_ int fd = io_unix_socket(path, SOCK_STREAM, &sa);

	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return TAKE_FD(fd);
}

/* The door's one-line reply into said. 0 or -errno (-EAGAIN: none in time). */
static int get_reply(int fd, char *said, size_t len)
{
	uint32_t n;
	char *text = NULL;
	size_t left = REPLY_MAX;
	int r = get_item(fd, &text, &n, &left);

	if (r == 0)
		(void) snprintf(said, len, "%s", text);
	free(text);
	return r;
}

/* Sends the request (kind, then the n items of it) and waits for the reply. 0 or -errno. */
static int ask(const char *path, unsigned timeout_ms, char kind, const char *const *items, const size_t *lens,
	       unsigned n, char *said, size_t len)
{
	uint32_t count = n;
	_cleanup_close_ int fd = door_open(path, timeout_ms);
	int r;

	if (fd < 0)
		return fd;
	r = io_write_full(fd, &kind, 1);
	if (r == 0)
		r = io_write_full(fd, &count, sizeof(count));
	for (unsigned i = 0; r == 0 && i < n; i++)
		r = put_item(fd, items[i], (uint32_t)lens[i]);
	if (r == 0)
		(void) shutdown(fd, SHUT_WR);
	if (r == 0)
		r = get_reply(fd, said, len);
	return r;
}

/*
 * The fetch step, through the door at path: the n modules of ask fetched there, within timeout_ms (the door's own
 * DebuginfodTimeoutSec=, waited for with a slack). What came of it into said. 0, or -errno where the door could not
 * be asked (said says so).
 */
int netdoor_fetch(const char *path, const struct fetch_need *ask_for, unsigned n, unsigned timeout_ms, char *said,
		  size_t len)
{
	char ids[FETCH_NEEDS_MAX][sizeof(ask_for->kind) + sizeof(ask_for->id) + sizeof(ask_for->name) + 3];
	const char *items[FETCH_NEEDS_MAX];
	size_t lens[FETCH_NEEDS_MAX];
	int r;

	for (unsigned i = 0; i < n && i < FETCH_NEEDS_MAX; i++) {
		(void) snprintf(ids[i], sizeof(ids[i]), "%s %s %s", ask_for[i].kind, ask_for[i].id, ask_for[i].name);
		items[i] = ids[i];
		lens[i] = strlen(ids[i]);
	}
	r = ask(path, timeout_ms + SLACK_MS, 'F', items, lens, n < FETCH_NEEDS_MAX ? n : FETCH_NEEDS_MAX, said, len);
	if (r < 0)
		(void) snprintf(said, len, "not fetched: the door to the network (%s) %s: %s", path,
				r == -EAGAIN ? "did not answer in time" : "could not be asked", strerror(-r));
	return r;
}

/*
 * ExecUpload= through the door at path: the stored core name sent there, the crash's entry's fields f given to the
 * command. What came of it into said. 0, or -errno where the door could not be asked.
 */
int netdoor_upload(const char *path, const char *name, const struct fields *f, unsigned timeout_ms, char *said,
		   size_t len)
{
	const char **items = calloc(f->n + 1, sizeof(*items));
	size_t *lens = calloc(f->n + 1, sizeof(*lens));
	int r = items && lens ? 0 : -ENOMEM;

	if (r == 0) {
		items[0] = name;
		lens[0] = strlen(name);
		for (size_t i = 0; i < f->n; i++) {
			items[i + 1] = f->iov[i].iov_base;
			lens[i + 1] = f->iov[i].iov_len;
		}
		r = ask(path, timeout_ms + SLACK_MS, 'U', items, lens, (unsigned)f->n + 1, said, len);
	}
	free(items);
	free(lens);
	return r;
}

/*
 * NotifyDirectory=, through the door at path: the door reads the crash's entry (entry, its CORESINK_ENTRY=) back
 * from the journal itself and runs the notifiers once it has answered, so that only its answer is waited for. What
 * it said into said. 0, or -errno where the door could not be asked (said says so).
 */
int netdoor_notify(const char *path, const char *entry, char *said, size_t len)
{
	const char *items[] = { entry };
	const size_t lens[] = { strlen(entry) };
	int r = ask(path, SLACK_MS, 'N', items, lens, 1, said, len);

	if (r < 0)
		(void) snprintf(said, len, "not notified: the door to the network (%s) %s: %s", path,
				r == -EAGAIN ? "did not answer in time" : "could not be asked", strerror(-r));
	return r;
}

/* Reads a request from conn: its kind, and its items (and their lengths) into new arrays. 0 or -errno. */
int netdoor_read(int conn, char *kind, char ***items, uint32_t **lens, unsigned *n)
{
	/* Read before it is used: cppcheck does not follow r through get_exact(). */
	uint32_t count = 0;
	size_t left = REQUEST_MAX;
	int r = get_exact(conn, kind, 1);

	*items = NULL, *lens = NULL, *n = 0;
	if (r == 0)
		r = get_exact(conn, &count, sizeof(count));
	if (r == 0 && count > FIELDS_MAX + 1)
		r = -E2BIG;
	if (r == 0) {
		*items = calloc(count + 1, sizeof(**items));
		*lens = calloc(count + 1, sizeof(**lens));
		r = *items && *lens ? 0 : -ENOMEM;
	}
	for (uint32_t i = 0; r == 0 && i < count; i++) {
		r = get_item(conn, &(*items)[i], &(*lens)[i], &left);
		if (r == 0)
			(*n)++;
	}
	return r;
}

/* The reply to a request: one line. 0 or -errno. */
int netdoor_reply(int conn, const char *said)
{
	return put_item(conn, said, (uint32_t)strlen(said));
}
