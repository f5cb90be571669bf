/*
 * base.h: the base stage, what every stage uses: the one place for EINTR and partial I/O, opening a path beneath a
 * directory, number and size parsing, escaping, SHA-256 (libsodium's), lists of problems, and the small macros.
 * The one header the other stages include of it; it uses no other stage.
 */
#ifndef CORESINK_STAGE_BASE_H
#define CORESINK_STAGE_BASE_H

#include "base/basics.h"
#include "base/age.h"
#include "base/beneath.h"
#include "base/boltread.h"
#include "base/cleanup.h"
#include "base/clock.h"
#include "base/diag.h"
#include "base/digest.h"
#include "base/escape.h"
#include "base/io.h"
#include "base/jsondoc.h"
#include "base/oldest.h"
#include "base/parse.h"
#include "base/programs.h"

#endif
