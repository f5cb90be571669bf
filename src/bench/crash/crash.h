/* crash.h: coresink-bench --crash: real crashes under each handler, against the two ceilings of the same run. */
#ifndef CORESINK_BENCH_CRASH_H
#define CORESINK_BENCH_CRASH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HANDLERS_MAX 16
#define PATTERN_MAX 128   /* the kernel keeps 127 bytes of core_pattern and the NUL */

enum handler_kind {
	HANDLER_CORESINK,    /* coresink with a strategy and knobs, from its own config file */
	HANDLER_KERNEL,      /* the kernel writing the file itself */
	HANDLER_CAT,         /* a naive '|sh -c cat>file' */
	HANDLER_NULL,        /* ceiling: the kernel emitting into a sink that stores nothing */
	HANDLER_DIRECT,      /* ceiling: not a crash, the disk's O_DIRECT write rate for as many bytes */
	HANDLER_SYSTEMD,     /* systemd-coredump, when installed */
	HANDLER_NULL_SOCKET, /* socket mode's ceiling: the kernel sending into a server that stores nothing */
	HANDLER_EXEC,        /* any program, given the file to write as its one argument: '|program file' */
	HANDLER_COREDUMPD,   /* systemd-coredumpd, systemd 262's server of the coredump socket, as its unit runs it */
	_HANDLER_KIND_MAX
};

struct handler {
	char name[64];
	enum handler_kind kind;
	char pattern[PATTERN_MAX];
	char config[PATH_MAX];
	char program[PATH_MAX]; /* exec:PATH */
	bool socket;         /* socket mode: a server (coresink's, or null-socket's), started for the run, takes them */
	bool drain_read;     /* null-socket:read: the null server drains by read(2), not splice(2) */
	pid_t server;
	char cgroup[PATH_MAX]; /* a socket-mode server's cgroup (v2), measured per crash (cgacct.c); "" for none */
};

struct crash_sample {
	int handler, run;
	double released;            /* crash to the process's end: the handler has let it go */
	double seconds;             /* crash to stored: the file under its final name */
	uint64_t bytes, disk;       /* the stored file's size and what it takes on disk */
	uint64_t written;           /* what the disk wrote meanwhile (a raw core and its compressed copy); 0 unknown */
	uint64_t cache;             /* peak growth of Cached */
	uint64_t rss;               /* the handler's peak RSS, from its journal entry; 0 when unknown */
	double cpu;                 /* a socket server's CPU seconds for the crash, from its cgroup; 0 when unknown */
	uint64_t mempeak;           /* its cgroup's peak memory (page cache included) during the crash; 0 unknown */
	double held, runq;          /* of released, the dumping thread asleep (held by the handler), and waiting for a
				       CPU; -1 when unknown (victim.c) */
	bool verified;
};

const char *handler_kind_to_string(enum handler_kind k);
int handler_kind_from_string(const char *s);
bool handler_is_ceiling(const struct handler *h);
bool handler_is_socket_mode(const struct handler *h);

int crash_main(int argc, char **argv);
void crash_table(FILE *f, const struct handler *h, int nh, const struct crash_sample *s, int ns);
int crash_csv(const char *path, const struct handler *h, const struct crash_sample *s, int ns);
int crash_plot(const char *path, const struct handler *h, int nh, const struct crash_sample *s, int ns);

#endif
