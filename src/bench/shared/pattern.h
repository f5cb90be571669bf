/* pattern.h: the known byte pattern the crasher holds and patcheck looks for in its core, with or without zero pages. */
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

/* With percent > 0, some 4 KiB pages of the pattern are zeros instead, spread evenly; never the first one. */
static inline int pattern_zero_page(uint64_t page, unsigned percent)
{
	return page > 0 && page * 37 % 100 < percent;
}

/* Word i of the pattern with percent of its pages zero. */
static inline uint64_t pattern_at(uint64_t i, unsigned percent)
{
	return pattern_zero_page(i / 512, percent) ? 0 : pattern_word(i);
}

#endif
