/*
 * policy.h: the policy stage, what the configuration and the directory's shared ledger allow: the config file and its
 * [Rule]s, the session over the ledger (MaxUse, vacuum, crash-rate limits), the crashes the kernel dropped, and
 * what was seen of each crash signature.
 * The one header the other stages include of it; it uses analyse, sandbox, store, intake, write, base.
 */
#ifndef CORESINK_STAGE_POLICY_H
#define CORESINK_STAGE_POLICY_H

#include "policy/config.h"
#include "policy/kskip.h"
#include "policy/modstore.h"
#include "policy/rules.h"
#include "policy/session.h"
#include "policy/sigstore.h"
#include "policy/vacuum.h"

#endif
