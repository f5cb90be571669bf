/*
 * door.c: coresink --net-door, the door to the network's own side (coresink-net@.service, started by
 * coresink-net.socket for each connection of socket mode's server): one request read (netdoor.c's wire), done with
 * this process's configuration as the pipe helper does it (the fetch step: entry.c; an upload: ship.c; the notifiers:
 * the program's notify.c, given), and its one-line reply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "capture-internal.h"
#include "netdoor.h"
#include "ship.h"

/* The door's side of a fetch: the items are "KIND BUILD-ID NAME", as the analysis names a module. */
static void serve_fetch(const struct config *c, char **items, unsigned n, char *said, size_t len)
{
	struct fetch_need needs[FETCH_NEEDS_MAX];
	unsigned k = 0;

	for (unsigned i = 0; i < n && k < FETCH_NEEDS_MAX; i++)
		k += (unsigned)fetch_parse_needs(items[i], &needs[k], 1);
	crash_fetch_run(c, needs, k, said, len);
}

/* The door's side of an upload: items[0] the core's name, the rest the entry's fields. What came of it into said. */
static void serve_upload(const char *config, bool named, char **items, const uint32_t *lens, unsigned n, char *said,
			 size_t len)
{
	struct fields f = { .n = 0 };
	struct diag d = { 0 };
	char why[256];
	int r;

	for (unsigned i = 1; i < n && f.n < FIELDS_MAX; i++)
		f.iov[f.n++] = (struct iovec) { .iov_base = items[i], .iov_len = lens[i] };
	/*
	 * The server reads hostile cores: what it sends is believed no further than a crash's entry goes. A field that
	 * is not one (LD_PRELOAD=, PATH=, a value the handler never writes) refuses the whole request, and is said.
	 */
	if (n > FIELDS_MAX + 1 || !crash_fields_ours(&f, why, sizeof(why))) {
		diag_add(&d, "%s", n > FIELDS_MAX + 1 ? "more fields than an entry has" : why);
		(void) report_diag(&d, "an upload asked of the door to the network", "refused: nothing run");
		(void) snprintf(said, len, "refused: not a crash's fields");
		return;
	}
	r = n ? ship_named(config, named, items[0], &f) : -EINVAL;
	(void) snprintf(said, len, "%s", r == 0 ? "sent" : r == -EIO ? "not sent (its entry says why)" : strerror(-r));
}

/*
 * coresink --net-door: one request on conn (fd 0, the connection systemd accepted), from root only, served with this
 * process's configuration, and its reply. 0, or an exit code.
 */
int netdoor_serve(const char *config, bool named, int conn, netdoor_notify_fn notify)
{
	struct ucred uc = { .uid = (uid_t)-1 };
	socklen_t ul = sizeof(uc);
	struct config c;
	struct diag d = { 0 };
	char kind = 0, said[2048], **items = NULL, *entry = NULL;
	uint32_t *lens = NULL;
	unsigned n = 0;
	int r = getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &uc, &ul) < 0 ? -errno : uc.uid != 0 ? -EPERM : 0;

	if (r == 0)
		r = netdoor_read(conn, &kind, &items, &lens, &n);
	config_read(&c, config, named, &d);
	if (r == 0 && kind == 'F')
		serve_fetch(&c, items, n, said, sizeof(said));
	else if (r == 0 && kind == 'U')
		serve_upload(config, named, items, lens, n, said, sizeof(said));
	else if (r == 0 && kind == 'N' && n == 1 && lens[0] == 32 && strspn(items[0], "0123456789abcdef") == 32 && notify)
		entry = items[0];
	if (entry)
		(void) snprintf(said, sizeof(said), "taken");
	else if (r < 0 || (kind != 'F' && kind != 'U'))
		(void) snprintf(said, sizeof(said), "refused: %s", r < 0 ? strerror(-r) : "not a request");
	(void) netdoor_reply(conn, said);
	/* A notification: its answer given first, the notifiers run after, in this process systemd keeps till the end. */
	if (entry && notify)
		notify(config, named, entry);
	for (unsigned i = 0; i < n; i++)
		free(items[i]);
	free(items);
	free(lens);
	config_free(&c);
	return r < 0 ? EXIT_SYSTEM : 0;
}
