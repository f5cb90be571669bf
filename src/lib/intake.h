/*
 * intake.h: the intake stage, what is known of a crash before its core: the kernel's arguments, the coredump socket's
 * protocol and its peer, /proc read against the pidfd, credentials and the cgroup; kernel.core_pattern itself, and
 * whether this kernel serves the coredump socket.
 * The one header the other stages include of it; it uses base.
 */
#ifndef CORESINK_STAGE_INTAKE_H
#define CORESINK_STAGE_INTAKE_H

#include "intake/cgroup.h"
#include "intake/corepattern.h"
#include "intake/creds.h"
#include "intake/kargs.h"
#include "intake/mapped.h"
#include "intake/peer.h"
#include "intake/procfs.h"
#include "intake/podmandb.h"
#include "intake/procinfo.h"
#include "intake/runtime.h"
#include "intake/sockcap.h"
#include "intake/sockproto.h"

#endif
