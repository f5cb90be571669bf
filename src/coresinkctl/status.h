/* status.h: coresinkctl status: the kernel's pattern and mode, the directory's use, the last crash and failure. */
#ifndef CORESINKCTL_STATUS_H
#define CORESINKCTL_STATUS_H

#include "admin.h"
#include "config.h"

int status_show(const struct config *c, int dirfd, const struct found *found);

#endif
