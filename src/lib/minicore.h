/*
 * minicore.h: the minicore stage, a core as ELF: the notes it carries, a minimal core made as it comes from the
 * process's link map, and what a debugger needs of a core that is cut short, had before it is (rescue.c).
 * The one header the other stages include of it; it uses base.
 */
#ifndef CORESINK_STAGE_MINICORE_H
#define CORESINK_STAGE_MINICORE_H

#include "minicore/elfcore.h"
#include "minicore/minicore.h"
#include "minicore/rescue.h"

#endif
