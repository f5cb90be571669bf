/* creds.h: whether a crashed process ran with the credentials it was started with (no setuid, no setgid). */
#ifndef CORESINK_CREDS_H
#define CORESINK_CREDS_H

#include <stdbool.h>
#include <stddef.h>

bool creds_unchanged(const char *status, const void *auxv, size_t auxv_len);

#endif
