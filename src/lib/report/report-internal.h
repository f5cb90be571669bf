/*
 * report-internal.h: what report.c lends the other entries of this stage (retraced.c), and the fields its helpers
 * (hooks.c, footprint.c) lend it; nothing else includes it.
 */
#ifndef CORESINK_REPORT_INTERNAL_H
#define CORESINK_REPORT_INTERNAL_H

#include "analyse.h"
#include "journal.h"
#include "outcome.h"

void report_add_line(struct fields *f, const char *name, const char *value);
void report_analysis_fields(struct fields *f, const struct analysis *a);
void report_hook_fields(struct fields *f, const struct outcome *o);
void report_footprint_fields(struct fields *f);
void report_message_with_trace(struct fields *f, const char *sentence, const char *trace);

#endif
