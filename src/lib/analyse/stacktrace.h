/* stacktrace.h: the stack trace of every thread in a stored core, in systemd-coredump's format, by elfutils. */
#ifndef CORESINK_STACKTRACE_H
#define CORESINK_STACKTRACE_H

#include <stdbool.h>
#include <stdio.h>

#include "intake.h"
#include "sandbox.h"

/*
 * Every thread's frames, up to 64 each, as long as the text stays within TRACE_TEXT_MAX (of the analysis's 512 KiB
 * of output, ANALYSIS_OUTPUT_MAX: the rest is the modules' JSON); past it a line says how many threads were left
 * out. 1000 threads of a few frames each fit.
 */
#define TRACE_FRAMES_MAX 64
#define TRACE_TEXT_MAX (384 * 1024)

/* What the analysis found besides the text: the executable's package, and every module's as JSON. */
struct trace_meta {
	char *package_name, *package_version;   /* of the module that is the executable, from its package note */
	char *package_json;                      /* {"module":{"buildId":...,"name":...},...}, modules with a note */
	unsigned unread;                         /* modules whose file was not found, readable or the core's */
	char unread_list[256];                   /* "NAME (why), ..." for the first of them */
	char *lost;                              /* "INDEX BUILD-ID NAME" lines: modules read from handed file INDEX
						    whose path no longer leads to them (KeepModules=); NULL none */
};

/*
 * The files the analysis was handed: mapped.c opened them from the mappings (file i is fd first_fd + i), and the
 * handler from the fetch step's cache (fetched file i is fd fetched_first_fd + i).
 */
struct trace_files {
	const struct mapped_file *f;
	unsigned n;
	int first_fd;
	const struct fetch_files *fetched;   /* NULL: none */
	int fetched_first_fd;
};

int stacktrace_write(int corefd, const char *exe, bool exe_here, const struct trace_files *files,
		     const char *debug_dir, FILE *text, FILE *canon, struct trace_meta *meta);
int stacktrace_needs(int corefd, const char *exe, bool exe_here, const struct trace_files *files,
		     const char *debug_dir, FILE *out);
void trace_meta_free(struct trace_meta *m);

#endif
