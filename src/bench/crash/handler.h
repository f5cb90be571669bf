/* handler.h: coresink-bench --crash's handlers: parsing, their patterns, systemd-coredump's socket. */
#ifndef CORESINK_BENCH_HANDLER_H
#define CORESINK_BENCH_HANDLER_H

#include <stdbool.h>
#include <sys/types.h>

#include "crash.h"

#define SYSTEMD_COREDUMP "/lib/systemd/systemd-coredump"
#define SYSTEMD_COREDUMP_SOCKET "/run/systemd/coredump"
#define SYSTEMD_COREDUMP_DIR "/var/lib/systemd/coredump"
/* systemd 262's socket server: its socket, and its unit's cgroup. */
#define SYSTEMD_COREDUMPD_SOCKET "/run/systemd/coredumpd/kernel"
#define SYSTEMD_COREDUMPD_CGROUP "/sys/fs/cgroup/system.slice/systemd-coredumpd.service"

/* Where a crash benchmark works: its directory, the cores directory in it, the handler, this program. */
struct bench_paths {
	char dir[PATH_MAX], cores[PATH_MAX], coresink[PATH_MAX], self[PATH_MAX];
};

bool systemd_coredump_installed(void);
bool handler_stores_in_systemd(const struct handler *h);
int handler_parse(const char *spec, int index, const struct bench_paths *p, struct handler *h);
pid_t sdc_start(void);
void sdc_stop(pid_t pid);
int server_start(const struct bench_paths *p, struct handler *h, int index);
void server_stop(struct handler *h);

/* Encrypt=bench's identity file (handler.c), "" where no variant asked for it. */
extern char handler_age_identity[];

#endif
