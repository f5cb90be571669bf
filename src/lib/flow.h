/*
 * flow.h: the flow stage, one crash's way through the stages, as pipe mode and socket mode bring it (capture.c lists
 * the steps), the upload of a stored core (ship.c), its analysis again (retrace.c), and the door to the network for
 * socket mode under its units (netdoor.c).
 * The one header the other stages include of it; it uses report, policy, analyse, sandbox, store, intake, write,
 * minicore, base.
 */
#ifndef CORESINK_STAGE_FLOW_H
#define CORESINK_STAGE_FLOW_H

#include "flow/capture.h"
#include "flow/netdoor.h"
#include "flow/retrace.h"
#include "flow/ship.h"

#endif
