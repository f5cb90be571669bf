/* peer.h: who is at the other end of a connection to the coredump socket, as the kernel arguments pipe mode gets. */
#ifndef CORESINK_PEER_H
#define CORESINK_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kargs.h"
#include "uapi.h"

struct peer {
	int pidfd;                 /* from SO_PEERPIDFD; -1 when there is none */
	struct pidfd_info info;
	char comm[16];             /* TASK_COMM_LEN */
	char hostname[65];         /* HOST_NAME_MAX + 1 */
	const char *hostname_why;  /* why there is none, or NULL */
};

int peer_identify(int conn, struct peer *p);
void peer_kargs(struct peer *p, uint64_t time, struct kargs *k);
int peer_exit_signal(const struct peer *p, int timeout_ms);
void peer_close(struct peer *p);

#endif
