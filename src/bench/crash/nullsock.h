/* nullsock.h: the socket-mode ceiling, coresink-bench --drain-socket: the kernel's core into /dev/null. */
#ifndef CORESINK_BENCH_NULLSOCK_H
#define CORESINK_BENCH_NULLSOCK_H

#include <stdbool.h>

int drain_socket(const char *path, bool by_read);

#endif
