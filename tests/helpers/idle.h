/*
 * idle.h: a crash helper's threads as a debugger should find them, each asleep where it waits, before the crash.
 * A thread calls idle_passed() once the last thing it waited on let it go, just before its pause(); the main thread
 * calls idle_all_paused(N) before it crashes. Crashing as soon as the threads were started (or a barrier let the
 * main thread go) raced them: with the memory filled in huge pages the crash came before a thread had left
 * pthread_barrier_wait (t-compress's 150 threads in make check-all's run 57), and gdb showed that frame for it.
 */
#ifndef CORESINK_TEST_IDLE_H
#define CORESINK_TEST_IDLE_H

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned idle_count;

static inline void idle_passed(void)
{
	__atomic_add_fetch(&idle_count, 1, __ATOMIC_SEQ_CST);
}

/* Whether the thread tid sleeps (its state in /proc: S). */
static inline int idle_sleeping(const char *tid)
{
	char path[64], stat[512], *end;
	FILE *f;
	size_t n;

	(void) snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	end = strrchr(stat, ')');
	return end && end[1] == ' ' && end[2] == 'S';
}

/* Whether every thread but this one sleeps; yes where there is no /proc to tell (a chroot without it). */
static inline int idle_others_asleep(void)
{
	char self[32];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	int asleep = 1;

	(void) snprintf(self, sizeof(self), "%d", (int)getpid());
	while (dir && asleep && (d = readdir(dir)))
		if (d->d_name[0] != '.' && strcmp(d->d_name, self) != 0 && !idle_sleeping(d->d_name))
			asleep = 0;
	if (dir)
		closedir(dir);
	return asleep;
}

/*
 * Returns once threads have passed and every thread but this one sleeps (past idle_passed(), only in pause()), or
 * after IDLE_WAIT_S, said on stderr: a helper that waits for good would hang its test, where a crash with a thread
 * out of place fails it with the frames that differ.
 */
#define IDLE_WAIT_S 10
static inline void idle_all_paused(unsigned threads)
{
	time_t until = time(NULL) + IDLE_WAIT_S;

	while (__atomic_load_n(&idle_count, __ATOMIC_SEQ_CST) < threads || !idle_others_asleep()) {
		if (time(NULL) > until) {
			fprintf(stderr, "idle: not every thread asleep in pause() after %d s; crashing anyway\n",
				IDLE_WAIT_S);
			return;
		}
		sched_yield();
	}
}

#endif
