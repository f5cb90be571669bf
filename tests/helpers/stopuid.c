/*
 * stopuid: waits for a process of uid UID named COMM, under a seccomp filter, to appear, stops it (SIGSTOP) and
 * prints its pid, so that a test can read its /proc while it cannot go on; the analysis child of a crash lives for
 * a few milliseconds only, and loads its filter last: caught then, it is as confined as it will be. Polls /proc's
 * status files (the owner of a non-dumpable process's /proc directory is root, whatever its uid).
 * usage: stopuid UID COMM TIMEOUT_MS. Exit codes: 0 found and stopped, 1 none within TIMEOUT_MS, 100 usage.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Whether process pid is named comm, has real uid uid, and runs under a seccomp filter. */
static int matches(const char *pid, unsigned uid, const char *comm)
{
	char path[64], line[256], name[64] = "";
	unsigned real, mode;
	FILE *f;
	int ours = 0, filtered = 0;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		(void) sscanf(line, "Name:\t%63s", name);
		if (sscanf(line, "Uid:\t%u", &real) == 1)
			ours = real == uid && strcmp(name, comm) == 0;
		if (sscanf(line, "Seccomp:\t%u", &mode) == 1)
			filtered = mode == 2;
	}
	if (f)
		fclose(f);
	return ours && filtered;
}

int main(int argc, char **argv)
{
	long long deadline;
	unsigned uid;

	if (argc != 4)
		return fprintf(stderr, "usage: stopuid UID COMM TIMEOUT_MS\n"), 100;
	uid = (unsigned)strtoul(argv[1], NULL, 10);
	deadline = now_ms() + atoll(argv[3]);
	while (now_ms() < deadline) {
		DIR *d = opendir("/proc");
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && matches(e->d_name, uid, argv[2]) &&
			    kill(atoi(e->d_name), SIGSTOP) == 0) {
				printf("%s\n", e->d_name);
				return 0;
			}
		if (d)
			closedir(d);
	}
	return 1;
}
