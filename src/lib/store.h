/*
 * store.h: the store stage, where a core goes and under what name: the root-owned directory, the hidden file and its
 * publication, the stored name, its attributes and the owner's read access, the root-only state files beside
 * the cores (statefile.c) and the directories beside them (ownedir.c).
 * The one header the other stages include of it; it uses intake, base.
 */
#ifndef CORESINK_STAGE_STORE_H
#define CORESINK_STAGE_STORE_H

#include "store/buildid.h"
#include "store/corename.h"
#include "store/owner.h"
#include "store/ownedir.h"
#include "store/statefile.h"
#include "store/store.h"
#include "store/xattr.h"

#endif
