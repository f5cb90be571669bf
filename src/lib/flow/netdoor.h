/* netdoor.h: the door to the network for socket mode under its units: the fetch step and uploads (netdoor.c). */
#ifndef CORESINK_NETDOOR_H
#define CORESINK_NETDOOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "sandbox.h"

/* Where coresink-net.socket listens; coresink.service names it in CORESINK_NETDOOR. */
#define NETDOOR_SOCKET "/run/coresink/net.socket"

int netdoor_fetch(const char *path, const struct fetch_need *ask, unsigned n, unsigned timeout_ms, char *said,
		  size_t len);
int netdoor_upload(const char *path, const char *name, const struct fields *f, unsigned timeout_ms, char *said,
		   size_t len);
int netdoor_notify(const char *path, const char *entry, char *said, size_t len);
int netdoor_read(int conn, char *kind, char ***items, uint32_t **lens, unsigned *n);
int netdoor_reply(int conn, const char *said);
/* What the door runs for an 'N' request, after its answer: the notifiers (the program's: they read the journal). */
typedef void (*netdoor_notify_fn)(const char *config, bool named, const char *entry);
int netdoor_serve(const char *config, bool named, int conn, netdoor_notify_fn notify);

#endif
