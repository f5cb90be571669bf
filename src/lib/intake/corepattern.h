/* corepattern.h: kernel.core_pattern, read and written back as the kernel keeps it. */
#ifndef CORESINK_COREPATTERN_H
#define CORESINK_COREPATTERN_H

#include <stddef.h>

/* The kernel keeps 128 bytes with the NUL (CORENAME_MAX_SIZE). */
#define CORE_PATTERN_MAX 127

int core_pattern_get(char *buf, size_t size);
int core_pattern_set(const char *pattern);

#endif
