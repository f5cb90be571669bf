/* mapped.h: the files with code the crashed process had mapped, opened from its mappings while the kernel holds it. */
#ifndef CORESINK_MAPPED_H
#define CORESINK_MAPPED_H

#include <stdint.h>

#include "procinfo.h"

/* At most so many files are opened per crash: more is said in the entry (a process with thousands of modules). */
#define MAPPED_MAX 512

/* One file, opened read-only, and the addresses its mappings span (a module's load address falls within them). */
struct mapped_file {
	int fd;
	uint64_t lo, hi;
	char *path;   /* as maps gives it (" (deleted)", the kernel's \012 escapes), or NULL without memory */
};

struct mapped {
	struct mapped_file *files;   /* n of them, malloc'd */
	unsigned n;
	unsigned over;               /* files with code past MAPPED_MAX, not opened */
	unsigned skipped;            /* not opened: on FUSE or a file system neither namespace mounts, not regular */
	const char *why;             /* why map_files could not be used at all (then only the executable is), or NULL */
};

int mapped_open(const struct procinfo_id *id, const char *maps, const char *exe, struct mapped *m);
void mapped_free(struct mapped *m);

#endif
