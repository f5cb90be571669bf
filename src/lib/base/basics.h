/*
 * basics.h: the small facts every program of coresink shares: the page size data is handled in, the exit codes,
 * the size of a table, and the lookup between an enum and its names.
 */
#ifndef CORESINK_BASICS_H
#define CORESINK_BASICS_H

#include <errno.h>
#include <string.h>

/*
 * The unit of alignment for buffers, chunk sizes and zero detection. Linux's smallest page size, and the one the
 * kernel dumps cores in on x86-64 and most arm64 systems; a multiple of it is aligned on any file system block.
 */
#define PAGE_BYTES 4096

/* Exit codes of both programs, skalibs' convention: 0 done, 100 usage, 111 system failure. */
#define EXIT_WRONG 1     /* coresink --check-config found problems; coresink-bench verified a wrong output */
#define EXIT_USAGE 100
#define EXIT_SYSTEM 111

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Defines name##_to_string(enum) and name##_from_string(const char *) over a table indexed by the enum, with one
 * entry for each value below max (checked at compile time). _to_string gives NULL out of range; _from_string gives
 * the value or -EINVAL.
 */
#define DEFINE_STRING_TABLE_LOOKUP(name, type, table, max)                          \
	_Static_assert(ELEMENTSOF(table) == (max), #table " must name every " #type); \
	const char *name##_to_string(type v)                                         \
	{                                                                             \
		return (unsigned)v < ELEMENTSOF(table) ? table[v] : NULL;             \
	}                                                                             \
	int name##_from_string(const char *s)                                        \
	{                                                                             \
		for (unsigned i = 0; s && i < ELEMENTSOF(table); i++)                 \
			if (table[i] && strcmp(s, table[i]) == 0)                     \
				return (int)i;                                        \
		return -EINVAL;                                               \
	}

#endif
