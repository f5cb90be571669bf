/* analysis.h: the stack trace of a stored core, made in the sandbox after the crashed process was released. */
#ifndef CORESINK_ANALYSIS_H
#define CORESINK_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "intake.h"
#include "sandbox.h"

#define ANALYSIS_OUTPUT_MAX (512 * 1024)   /* the trace's text (TRACE_TEXT_MAX) and the modules' JSON */
/* Who analyses a core its owner may not see (root's, a system user's, a setuid program's): coresink.sysusers. */
#define ANALYSIS_USER "coresink-analysis"

struct analysis_opts {
	const char *exe;          /* the executable's path, "" when unknown */
	uid_t uid;                /* who the analysis runs as */
	gid_t gid;
	uint64_t core_size;       /* the core is mapped whole: the address-space limit grows with it */
	unsigned timeout_ms;
	int root_fd;              /* the crashed process's root, where it is not ours: modules are read beneath it; -1 */
	const struct mapped *mapped;   /* the files it had mapped, read before any path; NULL when none were opened */
	const struct fetch_files *fetched;   /* what the fetch step got (DebuginfodURLs=), handed as fds; NULL */
	const char *debug_dir;    /* kept modules (KeepModules=), searched after the system's (.build-id/ beneath); NULL */
	bool needs_only;          /* list the modules that need debug info from elsewhere (a->needs), no trace */
};

struct analysis {
	char *trace;              /* the text for MESSAGE, NULL when there is none */
	char *package_name, *package_version, *package_json;
	char *unread;             /* the modules whose file was not read, and why; NULL when all were */
	char *needs;              /* needs_only: "KIND BUILD-ID NAME" lines (stacktrace_needs()); NULL for none */
	char *canon;              /* the crashing thread's frames' canonical names, "N NAME" lines (signature.c) */
	char *lost;               /* "INDEX BUILD-ID NAME": handed files whose path leads elsewhere now (KeepModules=) */
	char files[192];          /* what was handed of the mapped files, and why not more; "" when nothing */
	char why[128];            /* why there is no trace (or only part of one), "" when all went well */
	char debuginfo[1536];     /* DebuginfodURLs=: what was fetched, from where, and why not the rest; "" */
	uint64_t debuginfo_us;    /* what the fetch step (and the pass that named the modules) took */
	uint64_t elapsed_us;
	unsigned confined;        /* what confined it (SANDBOX_*), 0 when it did not run */
};

int analysis_user(uid_t *uid, gid_t *gid);
int analysis_run(int corefd, const struct analysis_opts *o, struct analysis *a);
void analysis_free(struct analysis *a);

#endif
