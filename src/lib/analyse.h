/*
 * analyse.h: the analyse stage, the stack trace of a stored core, made by libdwfl in the sandbox, with the package
 * notes of its modules, and the crash's signature read from that trace.
 * The one header the other stages include of it; it uses sandbox, intake, base.
 */
#ifndef CORESINK_STAGE_ANALYSE_H
#define CORESINK_STAGE_ANALYSE_H

#include "analyse/analysis.h"
#include "analyse/signature.h"
#include "analyse/sigjoin.h"

#endif
