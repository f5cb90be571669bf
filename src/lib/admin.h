/*
 * admin.h: the admin stage, the verbs both programs offer over what the handler left: the entries read back from a
 * journal and judged (entries.c, with report's origin.c), a crash's core found where the handler stored it and
 * nowhere else (corefile.c), the captures in progress from the ledger (inflight.c), list and info in coredumpctl's
 * form (show.c), the crashes grouped by signature (summary.c), the configuration checked (checkconfig.c), and a
 * stored crash analysed again (retrace.c). The one header the programs include of it; it uses flow and every stage
 * below.
 */
#ifndef CORESINK_STAGE_ADMIN_H
#define CORESINK_STAGE_ADMIN_H

#include "admin/checkconfig.h"
#include "admin/corefile.h"
#include "admin/entries.h"
#include "admin/inflight.h"
#include "admin/retrace.h"
#include "admin/show.h"
#include "admin/summary.h"

#endif
