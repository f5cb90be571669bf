/* pattern.h: the known byte pattern the crasher holds and patcheck looks for in its core. */
#ifndef CORESINK_PATTERN_H
#define CORESINK_PATTERN_H

#include <stdint.h>

#define PATTERN_SEED 0x636f726573696e6bULL   /* "coresink" */

/* splitmix64: every 8-byte word of the pattern is a different, reproducible value. */
static inline uint64_t pattern_word(uint64_t i)
{
	uint64_t z = PATTERN_SEED + (i + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
