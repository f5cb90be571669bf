/*
 * elfcore.h: what the first bytes of a core say: the signal (the NT_SIGINFO note), the thread that crashed (the first
 * NT_PRSTATUS), and the size of the whole core.
 */
#ifndef CORESINK_ELFCORE_H
#define CORESINK_ELFCORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How far into the core the notes are looked for: past the program headers of ~18,000 mappings. */
#define ELFCORE_HEAD_MAX (1024 * 1024)
/*
 * A core's headers and notes, at most, that the handler keeps for its threads' stacks (EarlyStacks=): 1000 threads'
 * notes take about 4 MiB; those of 400 went past ELFCORE_HEAD_MAX, and a core compressed as it came had no trace.
 */
#define ELFCORE_NOTES_MAX (64u << 20)

struct core_signal {
	int signo, errnum, code;   /* siginfo_t's si_signo, si_errno, si_code */
};

int elfcore_siginfo(const void *head, size_t len, struct core_signal *s);
int elfcore_thread(const void *head, size_t len, pid_t pid, pid_t *tid);
int elfcore_size(const void *head, size_t len, uint64_t *size);
int elfcore_clean_psinfo(void *head, size_t len);

#endif
