/* owner.h: the crashing user's read access to their own core, by a POSIX ACL. */
#ifndef CORESINK_OWNER_H
#define CORESINK_OWNER_H

#include <sys/types.h>

int owner_grant(int fd, uid_t uid);

#endif
