/* config.h: the configuration file: defaults, parsing, printing. */
#ifndef CORESINK_CONFIG_H
#define CORESINK_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "base.h"
#include "rules.h"
#include "write.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif
#define CONFIG_DEFAULT_PATH SYSCONFDIR "/coresink.conf"
#define NOTIFY_DEFAULT_DIR SYSCONFDIR "/coresink/notify.d"
#define COLLECT_DEFAULT_DIR SYSCONFDIR "/coresink/collect.d"

/* sun_path holds 108 bytes with the NUL; the kernel takes the path from core_pattern as it is. */
#define SOCKET_PATH_MAX 108

/* Storage=: where the core goes (systemd-coredump's key); none keeps only the entry and its stack trace. */
enum storage {
	STORAGE_EXTERNAL,
	STORAGE_JOURNAL,     /* the core's bytes in the entry (COREDUMP=), up to JournalSizeMax */
	STORAGE_NONE,
	_STORAGE_MAX
};

/* Core=: the whole core, or a minimal one (minicore.c): the notes, every thread's stack, what finds the modules. */
enum core_content {
	CORE_FULL,
	CORE_MINIMAL,
	_CORE_MAX
};

enum on_limit {
	ON_LIMIT_TRUNCATE,   /* keep the core up to the limit, marked truncated */
	ON_LIMIT_DISCARD,    /* keep nothing */
	_ON_LIMIT_MAX
};

/*
 * Encrypt=: the age recipients cores are encrypted to, as written (text) and as keys; bad where the value did not
 * parse, which stores no core at all (fails closed: never plaintext for a typo).
 */
struct encrypt {
	char text[AGE_RECIPIENTS_MAX * 64];
	unsigned char keys[AGE_RECIPIENTS_MAX][AGE_KEY_BYTES];
	unsigned n;
	bool bad;
};

struct config {
	char directory[PATH_MAX];
	size_t chunk_size;
	uint64_t read_ahead;       /* socket mode: bytes a thread reads of the core ahead of the writes; 0 for none,
				      READ_AHEAD_AUTO: the copy's kind decides (keep.c) */
	bool flush_behind;         /* the disk's cache emptied behind the writeback as the core comes (write/flush.c) */
	struct size_spec keep_free;
	struct size_spec max_use;
	struct size_spec max_use_per_user; /* of MaxUse (a percentage of it, or bytes): what one user's cores may take
					      before that user's crashes make room from their own cores alone */
	uint64_t max_core_size;
	enum on_limit on_limit;
	enum strategy strategy;
	mode_t file_mode;
	uint64_t rate_interval;    /* seconds */
	uint64_t rate_burst;       /* stored crashes per executable per interval; 0: no limit */
	uint64_t max_per_signature;   /* cores kept of one crash signature per signature_interval; 0: no limit */
	uint64_t signature_interval;  /* seconds */
	uint64_t rate_global_burst;
	uint64_t rate_user_burst;    /* one user's crashes per interval, of all executables; 0: no limit;
				      RATE_USER_HALF: half of rate_global_burst (config_user_burst) */
	bool capture_environment;  /* COREDUMP_ENVIRON: often holds secrets */
	bool sparse;               /* zero pages as holes */
	bool compress;             /* store cores as zstd files, compressed as they come */
	struct encrypt encrypt;    /* Encrypt=: age recipients; n == 0 for none */
	uint64_t compress_threads; /* zstd's own threads; 0 compresses in the handler's */
	bool stack_trace;          /* analyse the stored core: the trace goes into the entry */
	uint64_t stack_trace_max;  /* cores larger than this are not analysed */
	uint64_t stack_trace_ms;   /* the analysis is stopped after this long */
	char debuginfod_urls[1024]; /* DebuginfodURLs=: servers asked for debug info by build-id; "" none, "system" */
	bool keep_modules;         /* KeepModules=: keep the modules whose file was gone or replaced (modstore.c) */
	uint64_t debuginfod_ms;    /* the fetch step, all modules of one crash, is stopped after this long */
	uint64_t debuginfod_max_use; /* what the cache of fetched debug info may take */
	char socket[SOCKET_PATH_MAX]; /* socket mode: where coresink --serve listens for the kernel */
	uint64_t socket_parallel;  /* socket mode: crashes handled at once; more wait in the listen queue */
	uint64_t socket_parallel_per_user; /* of them, one user's at most; 0: half of socket_parallel, at least 1 */
	uint64_t socket_timeout_ms; /* socket mode: a capture still running after this long is killed */
	uint64_t socket_silence_ms; /* socket mode: a dump silent this long is abandoned, what came kept */
	enum storage storage;
	enum core_content core;
	uint64_t journal_size_max; /* Storage=journal: larger cores are stored as files */
	uint64_t minimal_stack_max; /* Core=minimal: the most of one thread's stack kept, from its stack pointer up */
	bool early_stacks;         /* EarlyStacks=: every stack read as the dump begins, for a core that is then cut */
	char exec_upload[1024];    /* ExecUpload=: the command run with each stored core; "" for none */
	char upload_user[64];      /* it runs as this user */
	uint64_t upload_timeout_ms;
	bool keep_after_upload;    /* keep the core once sent */
	char notify_dir[PATH_MAX];   /* NotifyDirectory=: the notifiers run for each crash; "" none */
	uint64_t notify_interval;    /* NotifyIntervalSec=: one notification per signature this often; 0 every crash */
	uint64_t notify_timeout_ms;  /* NotifyTimeoutSec=: each notifier's deadline */
	char collect_dir[PATH_MAX];  /* CollectDirectory=: the hooks run while the process is held; "" none */
	char collect_user[64];       /* CollectUser=: they run as this user, never root */
	uint64_t collect_timeout_ms; /* CollectTimeoutSec=: the most the release waits for them */
	char metrics_file[PATH_MAX]; /* MetricsFile=: the Prometheus text file rewritten after each crash; "auto": in
				      node_exporter's textfile directory where it exists; "" none */
	struct rule *rules;        /* the [Rule] sections, in the order read; NULL when none (config_free) */
	unsigned n_rules;
};

/* Where the config is being read: outside any section, in [Coresink], in a [Rule]. */
enum section {
	SECTION_NONE,
	SECTION_MAIN,
	SECTION_RULE,
};

const char *on_limit_to_string(enum on_limit l);
int on_limit_from_string(const char *s);
const char *storage_to_string(enum storage s);
int storage_from_string(const char *s);
const char *core_content_to_string(enum core_content c);
int core_content_from_string(const char *s);
void config_defaults(struct config *c);
int config_parse_line(struct config *c, const char *file, unsigned line, char *text, enum section *in,
		      struct diag *d);
int config_load(struct config *c, const char *path, struct diag *d);
int config_load_dropins(struct config *c, const char *path, struct diag *d);
void config_read(struct config *c, const char *path, bool named, struct diag *d);
void config_apply_rule(struct config *c, const struct rule *r);
void config_print(const struct config *c, FILE *f);
void config_free(struct config *c);

/* A configuration's limits on one file system, and the room of a file beside the cores there (limits.c). */
int config_limits(const struct config *c, int fd, struct side_space *l);
uint64_t config_side_room(const struct config *c, int fd, uint64_t used, uint64_t pending);
/* RateLimitUserBurst='s default: half of RateLimitGlobalBurst. */
#define RATE_USER_HALF UINT64_MAX
uint32_t config_user_burst(const struct config *c);
/* ReadAhead=auto: READ_AHEAD_RAW, from the first stored chunk on for a core compressed as it comes (keep.c). */
#define READ_AHEAD_AUTO UINT64_MAX
#define READ_AHEAD_RAW (8ULL << 20)
/* Its buffers: ReadAhead= is whole MiB. */
#define READ_AHEAD_SLOT (1u << 20)

#endif
