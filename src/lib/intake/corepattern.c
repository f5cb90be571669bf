/*
 * corepattern.c: kernel.core_pattern, read and written. A write counts only once it reads back: Linux 6.16.8 to
 * 6.17.4 take any pattern on write and check it when it is read, so a write that succeeds does not say the kernel
 * kept the pattern (systemd's coredump-register checks the same way).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "corepattern.h"
#include "procfs.h"

#define CORE_PATTERN_PATH "/proc/sys/kernel/core_pattern"

/* The live pattern, without its newline, in buf. 0 or -errno (-ENAMETOOLONG where buf is too small). */
int core_pattern_get(char *buf, size_t size)
{
	char *text = proc_read(AT_FDCWD, CORE_PATTERN_PATH, NULL);
	size_t len;

	if (!text)
		return -errno;
	len = strcspn(text, "\n");
	if (len >= size) {
		free(text);
		return -ENAMETOOLONG;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	free(text);
	return 0;
}

/* Writes pattern as one write(2) with its newline: the kernel parses each write of a string sysctl whole. */
static int put(const char *pattern)
{
	char line[CORE_PATTERN_MAX + 2];
	int len = snprintf(line, sizeof(line), "%s\n", pattern);
	_cleanup_close_ int fd = -1;

	if (len < 0 || (size_t)len >= sizeof(line))
		return -ENAMETOOLONG;
	fd = open(CORE_PATTERN_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return io_write_full(fd, line, (size_t)len);
}

/*
 * Sets kernel.core_pattern to pattern and reads it back. 0 when the kernel keeps it; the write's -errno when it
 * refuses it (EINVAL: a pattern it does not take); -EINVAL when it took the write but reads back something else,
 * after putting the pattern that was there back.
 */
int core_pattern_set(const char *pattern)
{
	char old[CORE_PATTERN_MAX + 2], now[CORE_PATTERN_MAX + 2];
	int r, was = core_pattern_get(old, sizeof(old));

	r = put(pattern);
	if (r < 0)
		return r;
	if (core_pattern_get(now, sizeof(now)) == 0 && strcmp(now, pattern) == 0)
		return 0;
	if (was == 0)
		(void) put(old);
	return -EINVAL;
}
