/*
 * capture-internal.h: what the files of one crash's way (capture.c, admit.c, keep.c, entry.c) share and nothing else
 * includes: the crashed process as /proc is asked of it, whose the crash is, publication, and the steps of the end.
 */
#ifndef CORESINK_CAPTURE_INTERNAL_H
#define CORESINK_CAPTURE_INTERNAL_H

#include <sched.h>
#include <stdbool.h>

#include "capture.h"
#include "netdoor.h"

struct procinfo_id crash_process_id(const struct crash *cr);
bool crash_owner_sees(const struct crash *cr);
int crash_publish(struct crash *cr, struct store_file *f, bool compressed);
void crash_analyse(struct crash *cr);
int crash_log(struct crash *cr);
void crash_count(struct crash *cr);
void crash_end_session(struct crash *cr);
void crash_report_orphans(struct crash *cr);
void crash_sign(struct crash *cr);
void crash_keep_modules(struct crash *cr);
void crash_rootless(struct container *c);
bool crash_entry_out(pid_t handler, pid_t pid, const char *entry, bool sending);
int crash_core_of(int dirfd, const char *directory, const struct ledger_crash *c, const char *entry,
		  struct named_core *nc);
void crash_fetch_run(const struct config *c, const struct fetch_need *ask, unsigned n, char *said, size_t len);
void crash_stacks_hook(struct crash *cr, struct engine_opts *eo);
int crash_stacks_give(struct crash *cr, int fd);
int crash_stacks_core(struct crash *cr);
void crash_stacks_free(struct crash *cr);
void crash_collect_start(struct crash *cr);
void crash_collect_end(struct crash *cr);
int crash_apart(const struct crash *cr, cpu_set_t *mine);
void crash_together(const cpu_set_t *mine);

#endif
