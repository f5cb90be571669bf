/*
 * crasher.c: holds SIZE MiB of the known pattern, then dies of SIGSEGV in crash_here(). Test and benchmark helper:
 * with -t it prints the CLOCK_REALTIME nanosecond at which it crashes, so that crash-to-stored can be timed; with
 * -u UID it changes credentials first, so that it is no longer dumpable by its owner (it dumps only with
 * fs.suid_dumpable=2, as %d=2); -c NAME sets its comm; -z PCT leaves PCT% of the pattern's pages zero (never
 * touched, as most of a real process's memory); -T N starts N idle threads first, each with its own stack; -D, when
 * started setuid, drops to its real ids for good and makes itself dumpable again (dump mode 1, but AT_SECURE 1);
 * -P stops itself (SIGSTOP) just before the crash, for a test to take its core with gcore while it lives; -W FIFO
 * waits, its memory ready, until FIFO's writer comes and goes (opens it and closes it), so that a storm test crashes
 * hundreds at the same moment.
 * usage: crasher [-t] [-D] [-P] [-u UID] [-c NAME] [-z PCT] [-T N] [-W FIFO] [MIB]
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <time.h>

#include "idle.h"
#include "pattern.h"

static volatile int *volatile nowhere;

/*
 * An ELF package note, as distributions stamp their binaries (systemd.io/ELF_PACKAGE_METADATA): the stack trace's
 * module line and COREDUMP_PACKAGE_* come from it. The linker puts .note.* sections in a PT_NOTE segment.
 */
__asm__(".pushsection .note.package,\"a\",@note\n"
	".balign 4\n"
	".long 4\n"                     /* n_namesz: "FDO" and its NUL */
	".long 2f - 1f\n"               /* n_descsz */
	".long 0xcafe1a7e\n"            /* n_type */
	".asciz \"FDO\"\n"
	"1: .asciz \"{\\\"type\\\":\\\"deb\\\",\\\"name\\\":\\\"coresink-crasher\\\","
	"\\\"version\\\":\\\"1.0-1\\\",\\\"architecture\\\":\\\"amd64\\\"}\"\n"
	"2: .balign 4\n"
	".popsection\n");

/* gdb must find this frame on top of the stack of the core. */
__attribute__((noinline)) static void crash_here(uint64_t *keep)
{
	*nowhere = (int)keep[0];
}

static void *idle(void *arg)
{
	(void) arg;
	idle_passed();
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int timed = 0, drop = 0, stop = 0, i = 1;
	unsigned zero = 0, threads = 0;
	uid_t uid = (uid_t)-1;
	const char *gate = NULL;

	for (; i < argc && argv[i][0] == '-'; i++) {
		timed |= strcmp(argv[i], "-t") == 0;
		drop |= strcmp(argv[i], "-D") == 0;
		stop |= strcmp(argv[i], "-P") == 0;
		if (strcmp(argv[i], "-u") == 0 && i + 1 < argc)
			uid = (uid_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			prctl(PR_SET_NAME, argv[++i], 0, 0, 0);
		else if (strcmp(argv[i], "-z") == 0 && i + 1 < argc)
			zero = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-T") == 0 && i + 1 < argc)
			threads = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-W") == 0 && i + 1 < argc)
			gate = argv[++i];
	}
	for (unsigned t = 0; t < threads; t++) {
		pthread_t th;

		if (pthread_create(&th, NULL, idle, NULL) != 0)
			return perror("pthread_create"), 1;
	}
	size_t mib = i < argc ? strtoul(argv[i], NULL, 10) : 64;
	size_t words = mib << 17;
	uint64_t *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec ts;

	if (p == MAP_FAILED)
		return perror("mmap"), 1;
	/*
	 * Huge pages where every page is written anyway (not with -z, whose pages must stay untouched): the core is the
	 * same bytes, and the fill takes a fault per 2 MiB, not per 4 KiB. On a virtualised host a fault is dear: a GiB
	 * took 4.5-6.4 s of CPU here, most of it the faults (2026-11-30). Advice only: nothing changes where THP is off.
	 */
	if (zero == 0)
		(void) madvise(p, mib << 20, MADV_HUGEPAGE);
	for (size_t w = 0; w < words; w++)
		if (!pattern_zero_page(w / 512, zero))
			p[w] = pattern_word(w);
	idle_all_paused(threads);
	if (uid != (uid_t)-1 && (setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0))
		return perror("setresuid"), 1;
	if (drop && (setresgid(getgid(), getgid(), getgid()) < 0 || setresuid(getuid(), getuid(), getuid()) < 0 ||
		     prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0))
		return perror("drop"), 1;
	if (timed) {
		clock_gettime(CLOCK_REALTIME, &ts);
		printf("%lld%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	}
	fflush(stdout);
	if (stop)
		raise(SIGSTOP);
	if (gate) {
		char c;
		int fd = open(gate, O_RDONLY);

		/* The open waits for the writer; the read for it to close. */
		if (fd < 0 || read(fd, &c, 1) < 0)
			return perror("gate"), 1;
	}
	crash_here(p);
	return 0;
}
