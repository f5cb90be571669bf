/*
 * ship.h: ExecUpload= for a core just stored (capture.c: crash_finish), and for the cores still to be sent
 * (--retry-uploads).
 */
#ifndef CORESINK_SHIP_H
#define CORESINK_SHIP_H

#include <stdbool.h>

#include "capture.h"
#include "config.h"
#include "report.h"
#include "sandbox.h"

int ship(const struct config *c, int dirfd, const char *name, int fd, const struct fields *f,
	 const struct upload_names *n, unsigned attempt);
void crash_upload(struct crash *cr);
int ship_named(const char *config, bool named, const char *name, const struct fields *f);
int ship_retry(const char *config, bool named, bool all);

#endif
