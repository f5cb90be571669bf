/*
 * report.h: the report stage, what a crash leaves in the journal: its one entry (report.c) with the COREDUMP_* fields
 * coredumpctl reads, what became of it (outcome.h), the fields as JSON for an upload, and the transport to journald.
 * The one header the other stages include of it; it uses policy, analyse, sandbox, intake, write, minicore, base.
 */
#ifndef CORESINK_STAGE_REPORT_H
#define CORESINK_STAGE_REPORT_H

#include "report/crashjson.h"
#include "report/journal.h"
#include "report/metrics.h"
#include "report/origin.h"
#include "report/outcome.h"
#include "report/report.h"
#include "report/retraced.h"

#endif
