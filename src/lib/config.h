/* config.h: the configuration file: defaults, parsing, printing. */
#ifndef CORESINK_CONFIG_H
#define CORESINK_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "diag.h"
#include "strategy.h"
#include "parse.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif
#define CONFIG_DEFAULT_PATH SYSCONFDIR "/coresink.conf"

/* sun_path holds 108 bytes with the NUL; the kernel takes the path from core_pattern as it is. */
#define SOCKET_PATH_MAX 108

enum on_limit {
	ON_LIMIT_TRUNCATE,   /* keep the core up to the limit, marked truncated */
	ON_LIMIT_DISCARD,    /* keep nothing */
	_ON_LIMIT_MAX
};

struct config {
	char directory[PATH_MAX];
	size_t chunk_size;
	struct size_spec keep_free;
	struct size_spec max_use;
	uint64_t max_core_size;
	enum on_limit on_limit;
	enum strategy strategy;
	mode_t file_mode;
	uint64_t rate_interval;    /* seconds */
	uint64_t rate_burst;       /* stored crashes per executable per interval; 0: no limit */
	uint64_t rate_global_burst;
	bool capture_environment;  /* COREDUMP_ENVIRON: often holds secrets */
	bool sparse;               /* zero pages as holes */
	bool compress;             /* store cores as zstd files, compressed after the process is released */
	bool stack_trace;          /* analyse the stored core: the trace goes into the entry */
	uint64_t stack_trace_max;  /* cores larger than this are not analysed */
	uint64_t stack_trace_ms;   /* the analysis is stopped after this long */
	char socket[SOCKET_PATH_MAX]; /* socket mode: where coresink --serve listens for the kernel */
	uint64_t socket_parallel;  /* socket mode: crashes handled at once; more wait in the listen queue */
	uint64_t socket_timeout_ms; /* socket mode: a capture still running after this long is killed */
};

const char *on_limit_to_string(enum on_limit l);
int on_limit_from_string(const char *s);
void config_defaults(struct config *c);
int config_parse_line(struct config *c, const char *file, unsigned line, char *text, int *in_section,
		      struct diag *d);
int config_load(struct config *c, const char *path, struct diag *d);
void config_read(struct config *c, const char *path, bool named, struct diag *d);
void config_print(const struct config *c, FILE *f);

#endif
