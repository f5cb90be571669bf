/* unit.h: what every Check suite shares: a main, temporary directories, reaping a child, a pidfd. */
#ifndef CORESINK_UNIT_H
#define CORESINK_UNIT_H

#include <check.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* Writes a core's ELF header as the kernel does, for this machine, phnum program headers right after it, at p. */
static inline void unit_core_ehdr(unsigned char *p, unsigned phnum)
{
	Elf64_Ehdr e = { .e_type = ET_CORE, .e_phoff = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr),
			 .e_phnum = (Elf64_Half)phnum, .e_ehsize = sizeof(Elf64_Ehdr) };

	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
#if defined(__x86_64__)
	e.e_machine = EM_X86_64;
#elif defined(__aarch64__)
	e.e_machine = EM_AARCH64;
#endif
	memcpy(p, &e, sizeof(e));
}

/* Writes one "CORE" note as the kernel lays it out in a core, type and descriptor at p: the bytes it took. */
static inline size_t unit_core_note(unsigned char *p, uint32_t type, const void *desc, uint32_t descsz)
{
	uint32_t hdr[3] = { 5, descsz, type };

	memcpy(p, hdr, sizeof(hdr));
	memcpy(p + 12, "CORE\0\0\0", 8);
	memcpy(p + 20, desc, descsz);
	return 20 + ((descsz + 3) & ~3u);
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

/* The names in path but . and .. */
static inline int unit_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static inline int unit_reap(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/* A pidfd of pid, or -1 where pidfd_open is unknown (valgrind 3.19 does not know it): said on stderr by suite. */
static inline int unit_pidfd(pid_t pid, const char *suite)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0 && errno == ENOSYS) {
		fprintf(stderr, "%s: pidfd_open not available here (valgrind?): pidfd case skipped\n", suite);
		return -1;
	}
	ck_assert_int_ge(fd, 0);
	return fd;
}

#endif
