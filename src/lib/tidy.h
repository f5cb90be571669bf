/*
 * tidy.h: the tidy stage, the housekeeping of the core directory: the cores in it and the oldest removed
 * (vacuum.c), the modules kept beside them (modstore.c), and the crash signatures seen (sigstore.c).
 * The one header the other stages include of it; it uses analyse, sandbox, store, intake, base.
 */
#ifndef CORESINK_STAGE_TIDY_H
#define CORESINK_STAGE_TIDY_H

#include "tidy/modstore.h"
#include "tidy/sigstore.h"
#include "tidy/vacuum.h"

#endif
