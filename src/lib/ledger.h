/*
 * ledger.h: the ledger stage, the state concurrent handlers share in the core directory, under one lock: what the
 * cores and the captures in flight take (ledger.c), one capture's session with it (session.c: MaxUse, vacuum, the
 * rate limits of ratelimit.c), and the crashes the kernel dropped (kskip.c).
 * The one header the other stages include of it; it uses tidy, store, intake, write, base.
 */
#ifndef CORESINK_STAGE_LEDGER_H
#define CORESINK_STAGE_LEDGER_H

#include "ledger/kskip.h"
#include "ledger/ledger.h"
#include "ledger/session.h"

#endif
