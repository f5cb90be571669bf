/*
 * outcome.h: what became of one crash, the facts its journal entry is made of: the result, the file, the copy's and
 * the compression's figures, the limits that applied. Filled in by the capture (capture.c), read by the report.
 */
#ifndef CORESINK_OUTCOME_H
#define CORESINK_OUTCOME_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyse.h"
#include "minicore.h"
#include "config.h"
#include "tidy.h"
#include "write.h"

enum result {
	RESULT_STORED,
	RESULT_TRUNCATED,    /* stored up to a limit */
	RESULT_DISCARDED,    /* a limit was reached and OnLimit=discard */
	RESULT_SUPPRESSED,   /* over the crash-rate limit */
	RESULT_SKIPPED,      /* RLIMIT_CORE below a page */
	RESULT_FAILED,
	RESULT_RECORDED,     /* Storage=none: the entry (and its stack trace) only */
	_RESULT_MAX
};

/* What became of one capture. */
struct outcome {
	enum result result;
	struct signature sig;       /* what identifies its bug (signature.c), when have_sig */
	bool have_sig;
	struct sig_seen seen;       /* what this machine saw of it (sigstore.c); seen_error: -errno when not known */
	int seen_error;
	uint64_t sig_max;           /* MaxCoresPerSignature that applied; sig_dropped: its core was removed for it */
	bool sig_dropped;
	const char *exe;            /* "" when unknown */
	char path[PATH_MAX + 256];  /* the stored file, "" when nothing was stored */
	struct engine_stats st;     /* the core as it came */
	uint64_t disk;              /* what the published file takes on disk */
	struct engine_stats zst;    /* its compression, when Compress= */
	uint64_t compress_us;
	const char *encrypted_to;   /* Encrypt=: the age recipients the file is encrypted to (st.encrypted); NULL */
	int compress_error;         /* -errno when it could not be compressed (the raw core was kept) */
	enum strategy strategy;
	int error;                  /* -errno of the step that failed, 0 if none */
	const char *step;           /* what failed, for the message */
	const char *suppressed_by;  /* the rate limit that suppressed it: "executable" or "global" */
	uint32_t suppressed_exe;    /* crashes of this executable not stored since its last stored one */
	uint32_t suppressed_all;    /* crashes the global limit did not store since the last stored one */
	unsigned vacuumed;          /* old cores removed to make room */
	unsigned vacuumed_unsent;   /* of them, cores still to be uploaded (ExecUpload=), now lost */
	uint64_t vacuumed_bytes;
	bool owner_entry;           /* the entry is its owner's to read: sent with the owner's credentials */
	bool acl;                   /* the crashing user was granted read access */
	int acl_error;              /* -errno when granting it failed */
	const char *acl_none;       /* why the owner, who may see the entry, was not given the core */
	bool socket;                /* came through the coredump socket (coresink --serve), not the pipe */
	uint64_t silence_ms;        /* socket mode: how long its dump could say nothing before it was abandoned */
	bool rejected;              /* socket mode: the kernel was told not to dump it at all */
	bool have_siginfo;          /* the core's NT_SIGINFO note was read */
	int signal_error;           /* socket mode, no core to read it from: why the signal is not known (-errno) */
	struct core_signal siginfo;
	char rule[RULE_NAME_MAX];   /* the [Rule] that applied, "" for none */
	bool minimal_wanted;        /* Core=minimal: mini says what came of it */
	bool in_journal;            /* Storage=journal: the core goes into the entry (COREDUMP=) */
	char storage_note[160];     /* why a core for the journal was stored as a file instead */
	char entry_id[33];          /* CORESINK_ENTRY=: to find the entry written (Storage=journal), or sent (by the dead) */
	char modules[1024];         /* KeepModules=: the modules kept for this core, or why not (modules.c); "" none */
	const char *hook_fields;    /* CollectDirectory=: the hooks' "KEY=VALUE\n" lines (collect.c), NULL none */
	bool hooks_failed;          /* one of them did not end well */
	char collect[2048];         /* what came of each hook, or why none ran; "" none was there to run */
	struct minicore_stats mini;
	struct rescue_stats stacks; /* EarlyStacks=: the stacks read as the dump began, and given to a cut core */
};

const char *result_to_string(enum result r);
int result_from_string(const char *s);

#endif
