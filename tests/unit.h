/* unit.h: what every Check suite shares: a main, temporary directories, and a pattern producer/verifier. */
#ifndef CORESINK_UNIT_H
#define CORESINK_UNIT_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tests/pattern.h"

#define UNIT_MAIN(suite_fn)                                                  \
	int main(void)                                                       \
	{                                                                    \
		SRunner *sr = srunner_create(suite_fn());                    \
		int failed;                                                  \
		srunner_run_all(sr, CK_NORMAL);                              \
		failed = srunner_ntests_failed(sr);                          \
		srunner_free(sr);                                            \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;                 \
	}

/* A fresh directory under $TMPDIR (or /tmp), removed by unit_rmtree(). */
static inline void unit_tmpdir(char *buf, size_t len)
{
	const char *t = getenv("TMPDIR");

	snprintf(buf, len, "%s/coresink-unit.XXXXXX", t ? t : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(buf));
}

static inline void unit_rmtree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Writes bytes [from, to) of the pattern into fd in pieces of piece bytes (from a multiple of 8). 0 or -1. */
static inline int unit_write_pattern(int fd, size_t from, size_t to, size_t piece)
{
	static uint64_t buf[1 << 17];   /* 1 MiB */

	if (piece > sizeof(buf))
		piece = sizeof(buf);
	for (size_t sent = from; sent < to;) {
		size_t n = to - sent < piece ? to - sent : piece;

		for (size_t i = 0; i < (n + 7) / 8; i++)
			buf[i] = pattern_word(sent / 8 + i);
		if (write(fd, buf, n) != (ssize_t)n)
			return -1;
		sent += n;
	}
	return 0;
}

/* Forks a writer that sends bytes of the pattern into pipe p in pieces of piece bytes, as the kernel does. */
static inline pid_t unit_produce(int p[2], size_t bytes, size_t piece)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Without its own copy of the read end, the writer sees EPIPE once the engine stops reading. */
		close(p[0]);
		_exit(unit_write_pattern(p[1], 0, bytes, piece) == 0 ? 0 : 1);
	}
	close(p[1]);
	return pid;
}

static inline int unit_reap(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/* Counts the leading bytes of fd that match the pattern, to the byte. */
static inline size_t unit_pattern_prefix(int fd)
{
	struct stat st;
	const unsigned char *map;
	size_t n = 0, size;

	ck_assert_int_eq(fstat(fd, &st), 0);
	size = (size_t)st.st_size;
	if (size == 0)
		return 0;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(map, MAP_FAILED);
	while (n < size) {
		uint64_t w = pattern_word(n / 8);
		size_t k = size - n < 8 ? size - n : 8;

		if (memcmp(map + n, &w, k) != 0)
			break;
		n += k;
	}
	munmap((void *)map, size);
	return n;
}

#endif
