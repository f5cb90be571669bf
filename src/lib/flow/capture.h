/*
 * capture.h: one crash's way from its admission to its one journal entry (capture.c lists the steps; admit.c,
 * keep.c and entry.c hold them), shared by the two ways a crash comes in: pipe mode (pipemode.c, the kernel's
 * arguments and its pipe) and socket mode (sockmode.c, a connection to the coredump socket). Each builds a crash with
 * its input fd and hands it to the same steps: admit, copy, keep, publish, finish.
 */
#ifndef CORESINK_CAPTURE_H
#define CORESINK_CAPTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyse.h"
#include "base.h"
#include "intake.h"
#include "minicore.h"
#include "config.h"
#include "ledger.h"
#include "tidy.h"
#include "report.h"
#include "store.h"
#include "write.h"

/* EarlyStacks=: what stacks.c read of the process as it began to dump (what came of it: the outcome's stacks). */
struct early_stacks {
	enum { ES_OFF, ES_WAITING, ES_READ, ES_NONE, ES_ABANDONED } state;
	struct rescue r;
	unsigned char *head;  /* the core's headers and notes, as the rescue needs them */
	size_t head_len;
};

/* What a crash came with: its input, what the kernel said of it, and the process as /proc showed it. */
struct crash_given {
	int in;               /* the core comes from here: fd 0 in pipe mode, the connection in socket mode; -1 once
				 released (crash_release) */
	const char *config;   /* the config file's path, for the entry about its problems */
	const char *netdoor;  /* socket mode under its units: the door to the network (netdoor.c); NULL: this process
				 has the network, and fetches and uploads itself */
	struct kargs k;
	struct diag kd;       /* problems with the kernel's arguments */
	struct procinfo pi;
	struct mapped mapped; /* the files it had mapped, opened while the kernel holds it, for the analysis */
	bool have_mapped;
	uint64_t started_us;  /* the monotonic clock when the handler began */
};

/* What a capture holds while it runs, given back by crash_finish(): its fds, its ledger session, its filters. */
struct crash_held {
	int dirfd;
	int corefd;           /* the stored core, kept open for reading after it is published: the analysis reads it */
	int memfd;            /* the process's memory, which the module list is read from */
	struct session q;
	bool have_session;
	struct diag ledger;   /* problems with the shared ledger: MaxUse, vacuum and rate limits off */
	struct minicore mc;   /* Core=minimal: the filter the core is read through */
	struct early_stacks es; /* EarlyStacks=: every thread's stack, read as the dump began (stacks.c) */
	struct store_file unpublished;  /* Storage=none: the core read for the stack trace, never published */
	bool have_unpublished;
	struct collect hooks; /* CollectDirectory=: started at the admission, waited for by the release (hooks.c) */
};

/*
 * One crash in hand, in four parts of different kinds: what it was given, what is configured for it (the config,
 * its [Rule] applied), what it holds, and what came of it (the outcome, the analysis, when it was let go).
 */
struct crash {
	struct crash_given given;
	struct config c;
	struct diag cd;       /* problems with the config file */
	struct crash_held held;
	struct outcome o;
	struct analysis a;
	uint64_t released_us; /* the monotonic clock when the process was let go */
};

/* What becomes of a core once copied (crash_fate: a pure function). */
enum fate {
	FATE_DISCARD,            /* failed, or OnLimit=discard: no file */
	FATE_PUBLISH_RAW,        /* Compress=no: the file as it came */
	FATE_PUBLISH_COMPRESSED, /* compressed as it came (it did not fit uncompressed) */
	FATE_COMPRESS,           /* published compressed once the process is let go (raw where that fails) */
	FATE_HOLD_JOURNAL,       /* Storage=journal: held for the entry, never published */
	FATE_HOLD_UNPUBLISHED,   /* Storage=none: held for the analysis, never published */
};

/* The stages of one crash, in the order they run (capture.c). */
void crash_init(struct crash *c, int in, const char *config, bool named);
void crash_read_process(struct crash *c);
int crash_admit(struct crash *c);
int crash_room(struct crash *c, struct store_file *f);
int crash_store(struct crash *c);
int crash_copy(struct crash *c, struct store_file *f);
int crash_take(struct crash *c, struct store_file *f);
enum fate crash_fate(bool failed, enum result result, bool compressed_as_came, enum storage storage, bool compress,
		     uint64_t bytes, uint64_t journal_size_max);
void crash_release(struct crash *c);
void crash_finish(struct crash *c);
int crash_handle(struct crash *c, int (*step)(struct crash *c), void (*let_go)(struct crash *c));
int crash_fail(struct crash *c, const char *step, int r);
int crash_status(const struct crash *c, int r);

int capture_pipe(const char *config, bool named, int argc, char **argv, char *entry, size_t len);
int capture_socket(const char *config, bool named, int conn, uint64_t time, const char *netdoor, char *entry,
		   size_t len);
void capture_lost(const struct config *cf, pid_t handler, const struct ledger_crash *c, const char *step, int error);
void capture_refused(const struct config *cf, const struct ledger_crash *c, const char *step, int error);

#endif
