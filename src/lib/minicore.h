/*
 * minicore.h: the minicore stage, a core as ELF: the notes it carries, and a minimal core made as it comes from the
 * process's link map.
 * The one header the other stages include of it; it uses base.
 */
#ifndef CORESINK_STAGE_MINICORE_H
#define CORESINK_STAGE_MINICORE_H

#include "minicore/elfcore.h"
#include "minicore/minicore.h"

#endif
