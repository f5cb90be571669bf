/*
 * capture.h: one crash's way from its admission to its one journal entry (capture.c), shared by the two ways a crash
 * comes in: pipe mode (pipemode.c, the kernel's arguments and its pipe) and socket mode (sockmode.c, a connection to
 * the coredump socket). Each builds a crash with its input fd and hands it to the same steps: admit, copy, keep,
 * publish, finish.
 */
#ifndef CORESINK_CAPTURE_H
#define CORESINK_CAPTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "config.h"
#include "diag.h"
#include "elfcore.h"
#include "engine.h"
#include "kargs.h"
#include "minicore.h"
#include "procinfo.h"
#include "session.h"
#include "store.h"

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
	unsigned vacuumed_unsent;   /* of them, cores still to be uploaded (ExecUpload=), now lost */
	uint64_t vacuumed_bytes;
	bool owner_entry;           /* the entry is its owner's to read: sent with the owner's credentials */
	bool acl;                   /* the crashing user was granted read access */
	int acl_error;              /* positive errno when granting it failed */
	const char *acl_none;       /* why the owner, who may see the entry, was not given the core */
	bool socket;                /* came through the coredump socket (coresink --serve), not the pipe */
	bool rejected;              /* socket mode: the kernel was told not to dump it at all */
	bool have_siginfo;          /* the core's NT_SIGINFO note was read */
	int signal_error;           /* socket mode, no core to read it from: why the signal is not known (errno) */
	struct core_signal siginfo;
	char rule[RULE_NAME_MAX];   /* the [Rule] that applied, "" for none */
	bool minimal_wanted;        /* Core=minimal: mini says what came of it */
	bool in_journal;            /* Storage=journal: the core goes into the entry (COREDUMP=) */
	char storage_note[160];     /* why a core for the journal was stored as a file instead */
	char entry_id[33];          /* Storage=journal: CORESINK_ENTRY=, to find the entry once written */
	struct minicore_stats mini;
};

/* One crash in hand: what the kernel said of it, the config, the storage, and what came of it. */
struct crash {
	int in;               /* the core comes from here: fd 0 in pipe mode, the connection in socket mode; -1 once
				 released (crash_release) */
	const char *config;   /* the config file's path, for the entry about its problems */
	struct diag kd, cd;   /* problems with the kernel's arguments, with the config file */
	struct config c;
	struct kargs k;
	struct outcome o;
	struct session q;
	struct procinfo pi;
	struct analysis a;
	bool have_session;
	int dirfd;
	int corefd;           /* the stored core, kept open for reading after it is published: the analysis reads it */
	struct diag ledger;   /* problems with the shared ledger: MaxUse, vacuum and rate limits off */
	struct minicore mc;   /* Core=minimal: the filter the core is read through */
	int memfd;            /* and the process's memory it reads the module list from */
	struct store_file unpublished;  /* Storage=none: the core read for the stack trace, never published */
	bool have_unpublished;
};

void crash_init(struct crash *c, int in, const char *config, bool named);
void crash_read_process(struct crash *c);
int crash_admit(struct crash *c);
int crash_room(struct crash *c, struct store_file *f);
int crash_copy(struct crash *c, struct store_file *f);
int crash_store(struct crash *c);
void crash_release(struct crash *c);
void crash_finish(struct crash *c);
int crash_fail(struct crash *c, const char *step, int r);
int crash_status(const struct crash *c, int r);
const char *result_to_string(enum result r);
int result_from_string(const char *s);

int capture_pipe(const char *config, bool named, int argc, char **argv);
int capture_socket(const char *config, bool named, int conn, uint64_t time);

#endif
