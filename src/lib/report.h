/* report.h: the one journal entry each crash gets, and the entry for configuration problems. */
#ifndef CORESINK_REPORT_H
#define CORESINK_REPORT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "kskip.h"
#include "diag.h"
#include "elfcore.h"
#include "engine.h"
#include "escape.h"
#include "kargs.h"
#include "procinfo.h"

#define CORESINK_MESSAGE_ID "fc2e22bc6ee647b6b90729ab34a250b1"
/* coresink's own: crashes the kernel dropped without a handler (not crash entries: coredumpctl lists none). */
#define CORESINK_DROPPED_MESSAGE_ID "d301249c826d437dbe30b41472bde574"

enum result {
	RESULT_STORED,
	RESULT_TRUNCATED,    /* stored up to a limit */
	RESULT_DISCARDED,    /* a limit was reached and OnLimit=discard */
	RESULT_SUPPRESSED,   /* over the crash-rate limit */
	RESULT_SKIPPED,      /* RLIMIT_CORE below a page */
	RESULT_FAILED,
	_RESULT_MAX
};

/* What became of one capture. */
struct outcome {
	enum result result;
	const char *exe;            /* "" when unknown */
	char path[PATH_MAX + 256];  /* the stored file, "" when nothing was stored */
	struct engine_stats st;     /* the core as it came */
	uint64_t disk;              /* what the published file takes on disk */
	struct engine_stats zst;    /* its compression, when Compress= */
	uint64_t compress_us;
	int compress_error;         /* positive errno when it could not be compressed (the raw core was kept) */
	enum strategy strategy;
	int error;                  /* positive errno of the step that failed, 0 if none */
	const char *step;           /* what failed, for the message */
	const char *suppressed_by;  /* the rate limit that suppressed it: "executable" or "global" */
	uint32_t suppressed_exe;    /* crashes of this executable not stored since its last stored one */
	uint32_t suppressed_all;    /* crashes the global limit did not store since the last stored one */
	unsigned vacuumed;          /* old cores removed to make room */
	uint64_t vacuumed_bytes;
	bool owner_entry;           /* the entry is its owner's to read: sent with the owner's credentials */
	bool acl;                   /* the crashing user was granted read access */
	int acl_error;              /* positive errno when granting it failed */
	const char *acl_none;       /* why the owner, who may see the entry, was not given the core */
	bool socket;                /* came through the coredump socket (coresink --serve), not the pipe */
	bool rejected;              /* socket mode: the kernel was told not to dump it at all */
	bool have_siginfo;          /* the core's NT_SIGINFO note was read */
	struct core_signal siginfo;
};

/* A comm (16 bytes with its NUL) escaped: the most it can grow to. */
#define NAME_COMM_ESCAPED (16 * ESCAPE_GROWTH)

int report_start(const struct kargs *k);
int report_crash(const struct kargs *k, const struct outcome *o, const struct procinfo *pi, const struct analysis *a);
int report_refused(int conn, int err);
int report_kernel_skips(const struct kskip *ks, long pipe_limit);
int report_diag(const struct diag *d, const char *what, const char *consequence);
const char *result_to_string(enum result r);
int result_from_string(const char *s);

#endif
