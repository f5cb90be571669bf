/* unit.h: what every Check suite shares: a main, temporary directories, reaping a child. */
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

static inline int unit_reap(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

#endif
