/*
 * sockmode.c: a crash as the kernel's coredump socket brings it (Linux 6.17, coresink --serve): a connection from
 * the crashing task, who it is from its pidfd, a request to answer before the dump, then the core on the same
 * connection. Builds the crash, answers the kernel with capture.c's decision, and hands the core to capture.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "capture.h"
#include "intake.h"
#include "report.h"

/*
 * The exchange with the kernel on the connection: its request, the decision (pipe mode's admission, and room for a
 * first chunk), the ack; then the core, when it was taken. 0 or -errno.
 */
static int exchange(struct crash *cr)
{
	struct coredump_req req;
	struct store_file f;
	uint32_t mark;
	int take, r;

	r = sockproto_request(cr->given.in, &req);
	if (r < 0)
		return crash_fail(cr, "reading the kernel's request", r);
	take = crash_admit(cr);
	if (take > 0)
		take = crash_room(cr, &f);
	r = sockproto_ack(cr->given.in, take > 0 ? COREDUMP_KERNEL | COREDUMP_WAIT : COREDUMP_REJECT, &mark);
	if (r < 0 && take > 0)
		store_discard(&f);
	if (r == -EPROTO)
		return crash_fail(cr, mark == UINT32_MAX ? "the kernel's answer to the ack" :
				  sockproto_mark_to_string(mark), r);
	if (r < 0)
		return crash_fail(cr, "answering the kernel", r);
	cr->o.rejected = take <= 0;
	return take > 0 ? crash_take(cr, &f) : take;
}

/* The peer of the connection in hand, for learn_signal(): a process handles one crash. */
static struct peer *peer_in_hand;

/* The signal that killed the process: from the core's notes, else from its exit status, now that it is let go. */
static void learn_signal(struct crash *cr)
{
	int sig;

	if (cr->o.have_siginfo && cr->o.siginfo.signo > 0) {
		cr->given.k.signal = cr->o.siginfo.signo;
		return;
	}
	sig = peer_exit_signal(peer_in_hand, 1000);
	if (sig > 0)
		cr->given.k.signal = sig;
	else
		cr->o.signal_error = sig;
}

/*
 * Socket mode: one connection to the coredump socket, in a process of its own (serve.c). A crashing task is
 * identified by its pidfd and handled as pipe mode handles one, with the decision made before the dump; anything
 * else is refused and logged. netdoor: the door to the network (netdoor.c) where the server has none; NULL. 0 when handled as the policy says, or -errno; logged either way.
 */
int capture_socket(const char *config, bool named, int conn, uint64_t time, const char *netdoor, char *entry,
		   size_t len)
{
	static struct crash cr;
	struct peer p;
	int r = peer_identify(conn, &p);

	entry[0] = '\0';
	if (r < 0) {
		(void) report_refused(conn, r);
		(void) close(conn);
		peer_close(&p);
		return r;
	}
	crash_init(&cr, conn, config, named);
	cr.o.socket = true;
	cr.given.netdoor = netdoor;
	peer_kargs(&p, time, &cr.given.k);
	crash_read_process(&cr);
	peer_in_hand = &p;
	r = crash_handle(&cr, exchange, learn_signal);
	peer_close(&p);
	(void) snprintf(entry, len, "%s", cr.o.entry_id);
	return r;
}
