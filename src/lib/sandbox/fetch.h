/* fetch.h: the fetch step: debug info by build-id from debuginfod servers, for the modules of a crash. */
#ifndef CORESINK_FETCH_H
#define CORESINK_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FETCH_USER "coresink-debuginfod"   /* coresink.sysusers */
#define FETCH_DIR ".debuginfo"             /* the cache, in Directory=: .build-id/xx/rest[.debug] beneath it */
#define FETCH_NEEDS_MAX 64                 /* modules asked for, per crash */
#define FETCH_MISS_SECONDS 600             /* a build-id no server had is not asked for again before this */

/* A module the analysis found without symbols or debug info (debuginfo), or without its file (executable). */
struct fetch_need {
	char kind[12];
	char id[129];          /* the build-id, hex */
	char name[64];         /* the module's name, as the trace shows it (escaped) */
};

/* A file of the cache, opened for one crash's analysis: its build-id, and whether it is debug info or the file. */
struct fetch_file {
	char id[129];
	bool debug;
	int fd;
};

struct fetch_files {
	struct fetch_file f[FETCH_NEEDS_MAX];
	unsigned n;
	int unopened;           /* how many the cache has that could not be opened, */
	int unopened_error;     /* and the first one's -errno */
};

struct fetch_job {
	const char *handler;   /* this program's path: it runs the step (--fetch-debuginfo) */
	const char *cache;     /* the cache directory's path */
	const char *urls;      /* the servers, blank-separated */
	unsigned timeout_ms;   /* for all the modules together */
	uint64_t max_use;      /* what the cache may take */
	uint64_t keep_free;    /* what must stay free on its file system */
	uint64_t room;         /* what it may add there, as the handler's budget said before the step (side.c) */
	uid_t uid;             /* FETCH_USER's */
	gid_t gid;
	const struct fetch_need *needs;
	unsigned n;
};

int fetch_parse_needs(const char *text, struct fetch_need *needs, unsigned max);
int fetch_urls(const char *setting, char *urls, size_t len);
int fetch_cache(int dirfd, uid_t uid, gid_t gid);
bool fetch_have(int cachefd, const struct fetch_need *n, uint64_t now);
unsigned fetch_open(int cachefd, const struct fetch_need *needs, int n, struct fetch_files *out);
void fetch_files_close(struct fetch_files *ff);
int fetch_run(const struct fetch_job *j, char *said, size_t len);
/* What the step's program is asked (fetch_run() writes it on its command line): fetch_step() does it. */
struct fetch_step_args {
	const char *cache;
	const char *urls;
	uint64_t timeout_ms, max_use, keep_free, room;
};

int fetch_step(const struct fetch_step_args *a, char **ids, int n);

#endif
