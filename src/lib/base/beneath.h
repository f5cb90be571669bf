/* beneath.h: opening a relative path beneath a directory, no link followed (beneath.c). */
#ifndef CORESINK_BENEATH_H
#define CORESINK_BENEATH_H

int open_beneath(int dirfd, const char *path);

#endif
