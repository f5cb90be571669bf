/* ownedir.h: a directory beside the cores, made where missing, owned as it must be, never a link. */
#ifndef CORESINK_OWNEDIR_H
#define CORESINK_OWNEDIR_H

#include <stdbool.h>
#include <sys/types.h>

int ownedir_open(int at, const char *name, uid_t uid, gid_t gid, mode_t mode, bool take);

#endif
