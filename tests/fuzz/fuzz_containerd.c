/*
 * fuzz_containerd.c: libFuzzer harness for the reader of a running containerd's command line and config
 * (intake/containerd.c), the input both: its command line up to the first 0xff byte, its config file after. Whatever
 * they say, what is found is absolute paths without "..", within their fields. Seeded with k3s's (corpus/containerd).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "intake/containerd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool made;
static char dir[] = "/tmp/fuzz-containerd-XXXXXX";
static const char *const files[] = { "/proc/1/comm", "/proc/1/status", "/proc/1/cmdline",
				     "/etc/containerd/config.toml" };

static void put(const char *path, const void *p, size_t n)
{
	char full[PATH_MAX];
	int fd;

	(void) snprintf(full, sizeof(full), "%s%s", dir, path);
	fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n || close(fd) < 0)
		abort();
}

/* The scratch tree gone when the fuzzer ends. */
static void tidy(void)
{
	static const char *const dirs[] = { "/proc/1", "/proc", "/etc/containerd", "/etc", "" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		(void) snprintf(path, sizeof(path), "%s%s", dir, files[i]), (void) unlink(path);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		(void) snprintf(path, sizeof(path), "%s%s", dir, dirs[i]), (void) rmdir(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char status[] = "Name:\tcontainerd\nUid:\t0\t0\t0\t0\n";
	struct containerd_dirs v[CONTAINERD_MAX];
	const uint8_t *cut = memchr(data, 0xff, size);
	size_t n, cmd = cut ? (size_t)(cut - data) : size;
	char path[PATH_MAX];

	/* Made once. (Not told by the template's last letter: mkdtemp's is an X one time in 62.) */
	if (!made) {
		if (!mkdtemp(dir) || atexit(tidy) != 0)
			abort();
		made = true;
		(void) snprintf(path, sizeof(path), "%s/proc", dir), (void) mkdir(path, 0700);
		(void) snprintf(path, sizeof(path), "%s/proc/1", dir), (void) mkdir(path, 0700);
		(void) snprintf(path, sizeof(path), "%s/etc", dir), (void) mkdir(path, 0700);
		(void) snprintf(path, sizeof(path), "%s/etc/containerd", dir), (void) mkdir(path, 0700);
		put(files[0], "containerd\n", 11);
		put(files[1], status, sizeof(status) - 1);
	}
	put(files[2], data, cmd);
	put(files[3], cut ? cut + 1 : data, cut ? size - cmd - 1 : 0);
	n = containerd_find(dir, v, CONTAINERD_MAX);
	for (size_t i = 0; i < n; i++)
		for (const char *p = v[i].state; p; p = p == v[i].state ? v[i].root : NULL)
			if (p[0] != '/' || strlen(p) >= CONTAINERD_PATH_MAX || strstr(p, "/../") || strstr(p, "//"))
				abort();
	return 0;
}
