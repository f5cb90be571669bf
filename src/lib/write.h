/*
 * write.h: the write stage, moving a core's bytes to the disk within the limits: the chunk loop, splice or
 * read/write, holes, compression as it comes, read-ahead, and the room each chunk may take.
 * The one header the other stages include of it; it uses minicore, base.
 */
#ifndef CORESINK_STAGE_WRITE_H
#define CORESINK_STAGE_WRITE_H

#include "write/engine.h"
#include "write/room.h"
#include "write/side.h"
#include "write/space.h"
#include "write/strategy.h"

#endif
