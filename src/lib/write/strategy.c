/* strategy.c: the names of the engine's strategies and preallocation modes, both ways. */
#include "base.h"
#include "strategy.h"

static const char *const strategy_names[] = {
	[STRATEGY_SPLICE] = "splice",
	[STRATEGY_READWRITE] = "readwrite",
	[STRATEGY_NAIVE_SPLICE] = "naive-splice",
};

static const char *const prealloc_names[] = {
	[PREALLOC_KEEP_SIZE] = "keep-size",
	[PREALLOC_EXTEND] = "extend",
	[PREALLOC_FTRUNCATE] = "ftruncate",
	[PREALLOC_NONE] = "none",
};

DEFINE_STRING_TABLE_LOOKUP(strategy, enum strategy, strategy_names, _STRATEGY_MAX)
DEFINE_STRING_TABLE_LOOKUP(prealloc, enum prealloc, prealloc_names, _PREALLOC_MAX)
