/*
 * admin.h: the admin stage, what both programs read back of what the handler left: the entries read from a journal
 * and judged (entries.c, with report's origin.c: the one journal reader), a crash's core found where the handler
 * stored it and nowhere else (corefile.c), the captures in progress from the ledger (inflight.c), and a crash shown
 * in coredumpctl's form (show.c): coresinkctl's list and info, and the JSON the handler's notifiers are given. The
 * verbs of coresinkctl alone (summary, check-config, retrace) are in src/coresinkctl/. The one header the programs
 * include of it; it uses flow and every stage below.
 */
#ifndef CORESINK_STAGE_ADMIN_H
#define CORESINK_STAGE_ADMIN_H

#include "admin/corefile.h"
#include "admin/entries.h"
#include "admin/inflight.h"
#include "admin/show.h"

#endif
