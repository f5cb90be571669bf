/* strategy.h: how the engine moves a core and preallocates its file, the names the config and the bench use. */
#ifndef CORESINK_STRATEGY_H
#define CORESINK_STRATEGY_H

enum strategy {
	STRATEGY_SPLICE,        /* stdin -> private pipe of one chunk -> file */
	STRATEGY_READWRITE,     /* read-fill a buffer, write it */
	STRATEGY_NAIVE_SPLICE,  /* stdin -> file directly; for comparison only */
	_STRATEGY_MAX
};

enum prealloc {
	PREALLOC_KEEP_SIZE,     /* fallocate(FALLOC_FL_KEEP_SIZE) ahead of each chunk */
	PREALLOC_EXTEND,        /* fallocate(0): extends the size, trimmed at the end */
	PREALLOC_FTRUNCATE,     /* ftruncate ahead of each chunk: what is left where fallocate is not supported */
	PREALLOC_NONE,
	_PREALLOC_MAX
};

const char *strategy_to_string(enum strategy s);
int strategy_from_string(const char *s);
const char *prealloc_to_string(enum prealloc p);
int prealloc_from_string(const char *s);

#endif
