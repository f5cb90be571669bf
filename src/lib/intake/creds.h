/*
 * creds.h: whether a crashed process ran with the credentials it was started with (no setuid, no setgid); system
 * users.
 */
#ifndef CORESINK_CREDS_H
#define CORESINK_CREDS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The uid ranges of systemd's UIDS-GIDS.md, as Debian builds it (SYS_UID_MAX 999 in login.defs). */
#define UID_SYSTEM_MAX 999
#define UID_DYNAMIC_MIN 61184        /* DynamicUser= */
#define UID_DYNAMIC_MAX 65519
#define UID_NOBODY 65534
#define UID_16BIT_INVALID 65535
#define UID_CONTAINER_MIN 0x00080000 /* nspawn --private-users and the foreign range, up to 0x7FFFFFFF */

bool creds_unchanged(const char *status, const void *auxv, size_t auxv_len);
bool uid_is_regular(uid_t uid);
int creds_system_user(const char *name, uid_t *uid, gid_t *gid);

#endif
