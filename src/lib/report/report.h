/* report.h: the one journal entry each crash gets, and the entry for configuration problems. */
#ifndef CORESINK_REPORT_H
#define CORESINK_REPORT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyse.h"
#include "base.h"
#include "intake.h"
#include "journal.h"
#include "outcome.h"
#include "ledger.h"
#include "sandbox.h"

#define CORESINK_MESSAGE_ID "fc2e22bc6ee647b6b90729ab34a250b1"
/* coresink's own: crashes the kernel dropped without a handler (not crash entries: coredumpctl lists none). */
#define CORESINK_DROPPED_MESSAGE_ID "d301249c826d437dbe30b41472bde574"

/* A comm (16 bytes with its NUL) escaped: the most it can grow to. */
#define NAME_COMM_ESCAPED (16 * ESCAPE_GROWTH)

/* coresink's own: what came of an upload (ExecUpload=), linked to its crash by COREDUMP_PID. */
#define CORESINK_UPLOAD_MESSAGE_ID "37d0a70e75c44cf88f269bffb484bb14"
/* The entry that says who was told of a crash (NotifyDirectory=). */
#define CORESINK_NOTIFY_MESSAGE_ID "0fa3ebf127ee43ae9e22675d3e88aff7"

int report_start(const struct kargs *k);
void report_fields(const struct kargs *k, const struct outcome *o, const struct procinfo *pi,
		   const struct analysis *a, struct fields *f);
int report_upload(pid_t pid, const char *path, unsigned attempt, const struct sandbox_result *res, int err,
		  uint64_t next);
int report_crash(const struct kargs *k, const struct outcome *o, const struct procinfo *pi, const struct analysis *a,
		 int corefd);
int report_refused(int conn, int err);
/* A core a dead handler stored, as found by its name: its path ("" none), size and the entry id it carries. */
struct named_core {
	char path[PATH_MAX + NAME_MAX_LEN];
	uint64_t size;
	char entry[LEDGER_ENTRY_LEN + 1];
};

int report_lost(const struct ledger_crash *c, const char *step, int error, const struct named_core *nc,
		enum strategy strategy);
int report_orphan(const struct ledger_crash *c, pid_t handler, const struct named_core *nc);
int report_kernel_skips(const struct kskip *ks, long pipe_limit);
int report_diag(const struct diag *d, const char *what, const char *consequence);

#endif
