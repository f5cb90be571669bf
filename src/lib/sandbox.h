/*
 * sandbox.h: the sandbox stage, every confined child: the sandbox (its own user, no privileges, seccomp, a deadline)
 * and what runs in it: the upload command (ExecUpload=), the collect hooks (CollectDirectory=), the programs of a
 * run-parts directory.
 * The one header the other stages include of it; it uses store, base.
 */
#ifndef CORESINK_STAGE_SANDBOX_H
#define CORESINK_STAGE_SANDBOX_H

#include "sandbox/collect.h"
#include "sandbox/fetch.h"
#include "sandbox/parts.h"
#include "sandbox/sandbox.h"
#include "sandbox/upload.h"

#endif
