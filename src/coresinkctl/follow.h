/* follow.h: coresinkctl list --follow (follow.c). */
#ifndef CORESINKCTL_FOLLOW_H
#define CORESINKCTL_FOLLOW_H

#include <stdbool.h>

#include "admin.h"

int follow_list(const struct selection *sel, int dirfd, bool legend, enum json_mode json);

#endif
