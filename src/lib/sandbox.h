/*
 * sandbox.h: the sandbox stage, every confined child: the sandbox (its own user, no privileges, seccomp, a deadline)
 * and the upload command (ExecUpload=) run in it.
 * The one header the other stages include of it; it uses store, base.
 */
#ifndef CORESINK_STAGE_SANDBOX_H
#define CORESINK_STAGE_SANDBOX_H

#include "sandbox/fetch.h"
#include "sandbox/sandbox.h"
#include "sandbox/upload.h"

#endif
