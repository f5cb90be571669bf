/*
 * debuginfod.c: the fetch step's own work (coresink --fetch-debuginfo, src/coresink/fetchstep.c, run by fetch.c as
 * FETCH_USER with nothing of the crash): it confines itself further (confine_fetch(): no /proc, the file system read-only but its cache, its
 * own IPC namespace, a seccomp filter; where any of it fails, it fetches nothing and says why), asks the servers for
 * each build-id with elfutils' libdebuginfod, and keeps a file only when its build-id is the one asked for, under
 * .build-id/xx/rest[.debug] in the cache (a server that serves another file is refused). A build-id no server has is
 * marked (.miss) so that the next crashes do not ask again at once. The cache is its user's alone (0700): the
 * handler opens what a crash needs and hands it to the analysis (fetch.c), so no other user learns what root's
 * crashes needed. Every download is bounded while it runs, whatever the server says of its length (a chunked or
 * endless answer): by the cache's bound and the room above KeepFree (libdebuginfod's progress callback stops it),
 * and by RLIMIT_FSIZE beneath that. The cache is brought within its bound, the oldest first, before the first
 * download (what a step killed at its deadline left) and after the last. Each result is one line on standard
 * output: "fetched KIND ID URL", "missing KIND ID WHY", or "error WHY" where the step could not start.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "confine.h"
#include "store.h"
#include "write.h"
#include "fetch.h"

#define MAX_SECONDS_FLOOR 1

/* A download's temporary directory (libdebuginfod's cache) older than this was left by a step that was killed. */
#define CLIENT_STALE_SECONDS (2 * 3600)

struct step {
	const char *cache;
	int cachefd;              /* the cache, opened before the step confines itself: its file system asked */
	uint64_t max_use, keep_free;
	uint64_t room;            /* what the handler's budget gave the step before it started (side.c) */
	double deadline;          /* CLOCK_MONOTONIC seconds */
	uint64_t limit;           /* what the download in progress may take */
};

/* The step, for libdebuginfod's progress callback, which gets only the client; and whether it stopped one. */
static const struct step *current;
static bool stopped;

/*
 * libdebuginfod, opened by this step alone: linked into the handler, it and libcurl's TLS, Kerberos and LDAP
 * libraries (some 30) would be mapped by every crash's handler, DebuginfodURLs= set or not.
 */
static struct {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	const char *(*get_url)(debuginfod_client *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
} lib;

/* 0, or -ENOENT with the reason said when libdebuginfod (Debian's libdebuginfod1) is not there. */
static int lib_open(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return printf("error libdebuginfod.so.1 cannot be loaded (install libdebuginfod1): %s\n", dlerror()),
		       -ENOENT;
	*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
	*(void **)&lib.end = dlsym(h, "debuginfod_end");
	*(void **)&lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&lib.find_executable = dlsym(h, "debuginfod_find_executable");
	*(void **)&lib.get_url = dlsym(h, "debuginfod_get_url");
	*(void **)&lib.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	if (!lib.begin || !lib.end || !lib.find_debuginfo || !lib.find_executable || !lib.get_url ||
	    !lib.set_progressfn)
		return printf("error libdebuginfod.so.1 lacks a function this step uses\n"), -ENOENT;
	return 0;
}

static double now(void)
{
	return (double)clock_us() / 1e6;
}

/* Whether the ELF file in fd has the build-id hex (no more, no less). */
static bool has_build_id(int fd, const char *hex)
{
	Elf *elf;
	const void *id;
	ssize_t n;
	bool same = false;

	(void) elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (n > 0 && (size_t)n * 2 == strlen(hex)) {
		same = true;
		for (ssize_t i = 0; i < n && same; i++) {
			char two[3];

			(void) snprintf(two, sizeof(two), "%02x", ((const unsigned char *)id)[i]);
			same = strncmp(two, hex + 2 * i, 2) == 0;
		}
	}
	if (elf)
		elf_end(elf);
	return same;
}

/* The path in the cache for kind and id, with suffix (".miss" or ""), its .build-id/xx directory made. */
static int cache_path(const struct step *s, const char *kind, const char *id, const char *suffix, char *path,
		      size_t len)
{
	(void) snprintf(path, len, "%s/.build-id", s->cache);
	(void) mkdir(path, 0700);
	(void) snprintf(path, len, "%s/.build-id/%.2s", s->cache, id);
	(void) mkdir(path, 0700);
	return snprintf(path, len, "%s/.build-id/%.2s/%s%s%s", s->cache, id, id + 2,
			strcmp(kind, "debuginfo") == 0 ? ".debug" : "", suffix) < (int)len ? 0 : -ENAMETOOLONG;
}

/* Marks id as missing for now (an empty .miss file, its time the mark). */
static void mark_missing(const struct step *s, const char *kind, const char *id)
{
	char path[4096];
	int fd;

	if (cache_path(s, kind, id, ".miss", path, sizeof(path)) < 0)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	fd_close(&fd);
}

/*
 * What a download may take now: the room a capture's chunk would have where the cache is (side.c: above KeepFree,
 * the metadata margin, ext4's slack), never more than the handler gave the step; 0 when there is none.
 */
static uint64_t room(const struct step *s)
{
	const struct size_spec keep = { s->keep_free, false, UINT64_MAX };
	const struct side_use u = { 0 };
	enum limit which;
	uint64_t r = side_room(s->cachefd, &keep, NULL, &u, &which);

	return r < s->room ? r : s->room;
}

/* What one file may take: the room now, within what the cache may take. */
static uint64_t allowance(const struct step *s)
{
	uint64_t r = room(s);

	return r < s->max_use ? r : s->max_use;
}

/*
 * libdebuginfod's word on a download in progress: a bytes so far (of b, 0 when the server did not say). Non-zero
 * stops it: past what the step may take, or where the file system came down to KeepFree meanwhile.
 */
static int progress(debuginfod_client *c, long a, long b)
{
	(void) c, (void) b;
	if (!current || a < 0)
		return 0;
	if ((uint64_t)a > current->limit || (a > 0 && room(current) == 0))
		stopped = true;
	return stopped;
}

/* Asks the servers for one build-id; keeps what has it. The line it says. */
static void fetch_one(struct step *s, debuginfod_client *c, const char *kind, const char *id)
{
	char dest[4096], seconds[24], maxsize[24], *got = NULL;
	const char *url;
	double left = s->deadline - now();
	_cleanup_close_ int fd = -1;

	if (left < MAX_SECONDS_FLOOR) {
		printf("missing %s %s no time left in DebuginfodTimeoutSec\n", kind, id);
		return;
	}
	s->limit = allowance(s);
	/* libdebuginfod takes a DEBUGINFOD_MAXSIZE of 0 for no bound at all. */
	if (s->limit == 0) {
		printf("missing %s %s no room for it (KeepFree=, DebuginfodMaxUse=)\n", kind, id);
		return;
	}
	stopped = false;
	(void) snprintf(seconds, sizeof(seconds), "%d", (int)left);
	(void) snprintf(maxsize, sizeof(maxsize), "%llu", (unsigned long long)s->limit);
	(void) setenv("DEBUGINFOD_MAXTIME", seconds, 1);
	(void) setenv("DEBUGINFOD_TIMEOUT", seconds, 1);
	(void) setenv("DEBUGINFOD_MAXSIZE", maxsize, 1);
	fd = strcmp(kind, "debuginfo") == 0 ? lib.find_debuginfo(c, (const unsigned char *)id, 0, &got)
					    : lib.find_executable(c, (const unsigned char *)id, 0, &got);
	url = lib.get_url(c);
	if (fd < 0) {
		printf("missing %s %s %s\n", kind, id,
		       stopped || fd == -EFBIG ? "larger than the cache may take (DebuginfodMaxUse=, KeepFree=)" :
		       fd == -ENOENT ? "no server has it" : strerror(-fd));
		if (fd == -ENOENT && !stopped)
			mark_missing(s, kind, id);
	} else if (!has_build_id(fd, id)) {
		printf("missing %s %s the server's file has another build-id (%s)\n", kind, id, url ? url : "?");
		(void) unlink(got);
	} else if (cache_path(s, kind, id, "", dest, sizeof(dest)) < 0 || (link(got, dest) < 0 && errno != EEXIST)) {
		printf("missing %s %s not kept in the cache: %s\n", kind, id, strerror(errno));
		(void) unlink(got);
	} else {
		/* The time is the fetch's (a server may have set the file's own), which the bound goes by. */
		(void) utimensat(AT_FDCWD, dest, NULL, 0);
		printf("fetched %s %s %s\n", kind, id, url ? url : "?");
		(void) unlink(got);
	}
	free(got);
	(void) fflush(stdout);
}

/* The cache's files, as the trimmer takes them (its names "xx/rest" beneath .build-id), and what they take. */
struct cache_list {
	struct oldest *all;
	size_t n, cap;
	uint64_t total;
	int tree;
};

static void take_cached(void *ctx, int at, const char *xx, const char *name, const struct stat *st)
{
	struct cache_list *l = ctx;

	(void) at;
	if (l->n == l->cap) {
		struct oldest *p = reallocarray(l->all, l->cap ? l->cap * 2 : 64, sizeof(*p));

		if (!p)
			return;
		l->all = p;
		l->cap = l->cap ? l->cap * 2 : 64;
	}
	if (snprintf(l->all[l->n].name, sizeof(l->all[l->n].name), "%s/%s", xx, name) >= OLDEST_NAME_MAX)
		return;
	l->all[l->n].mtime = st->st_mtim;
	l->all[l->n].bytes = (uint64_t)st->st_blocks * 512;
	l->total += l->all[l->n++].bytes;
}

static int remove_cached(void *ctx, void *entry, uint64_t *freed)
{
	const struct cache_list *l = ctx;
	const struct oldest *o = entry;

	if (unlinkat(l->tree, o->name, 0) < 0)
		return -errno;
	*freed = o->bytes;
	return 0;
}

/* Keeps the cache's files within max_use: the oldest go first (oldest.c). */
static void bound(const struct step *s)
{
	char dir[4096];
	struct cache_list l = { .tree = -1 };

	(void) snprintf(dir, sizeof(dir), "%s/.build-id", s->cache);
	l.tree = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (l.tree < 0)
		return;
	buildid_walk(l.tree, take_cached, &l);
	oldest_sort(l.all, l.n, sizeof(*l.all));
	if (l.total > s->max_use)
		(void) oldest_remove(l.all, l.n, sizeof(*l.all), l.total - s->max_use, remove_cached, &l, NULL);
	free(l.all);
	(void) close(l.tree);
}

/* Removes the tree beneath path (a download's directory), never following a link; best effort. */
static void remove_tree(int at, const char *name)
{
	DIR *d = opendir_at(at, name, O_NOFOLLOW);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlinkat(dirfd(d), e->d_name, 0) < 0)
			remove_tree(dirfd(d), e->d_name);
	if (d)
		(void) closedir(d);
	(void) unlinkat(at, name, AT_REMOVEDIR);
}

/*
 * The directories of .client (libdebuginfod's caches, one per step) that a step killed at its deadline left: a
 * step lasts at most an hour (DebuginfodTimeoutSec=), so one older than CLIENT_STALE_SECONDS is nobody's.
 */
static void remove_stale(const char *client)
{
	DIR *d = opendir_at(AT_FDCWD, client, O_NOFOLLOW);
	struct dirent *e;
	struct stat st;
	time_t now = time(NULL);

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now - st.st_mtime > CLIENT_STALE_SECONDS)
			remove_tree(dirfd(d), e->d_name);
	if (d)
		(void) closedir(d);
}

/*
 * No file of the step's may grow past what the cache may take, whatever libdebuginfod does: the kernel's own bound,
 * beneath the progress callback's (which sees a download between libcurl's writes: FSIZE_SLACK later at most), SIGXFSZ
 * ignored: the write fails with EFBIG instead.
 */
#define FSIZE_SLACK (1u << 20)
static int bound_files(const struct step *s)
{
	uint64_t most = allowance(s) + FSIZE_SLACK;
	const struct rlimit rl = { most, most };

	(void) signal(SIGXFSZ, SIG_IGN);
	return setrlimit(RLIMIT_FSIZE, &rl) < 0 ? -errno : 0;
}

/* Asks for each KIND:ID of ids (n of them) with the client c. */
static void fetch_all(struct step *s, debuginfod_client *c, char **ids, int n)
{
	current = s;
	lib.set_progressfn(c, progress);
	for (int i = 0; i < n; i++) {
		char kind[16], id[130];

		if (sscanf(ids[i], "%15[a-z]:%129[0-9a-f]", kind, id) != 2 || strlen(id) < 2)
			continue;
		fetch_one(s, c, kind, id);
	}
	current = NULL;
}

/*
 * The step, as its program (src/coresink/fetchstep.c) was asked for it: the n KIND:ID of ids, from a's servers into
 * a's cache, within a's bounds. 0 when it could ask (whatever the servers said), 1 when it could not even start (said
 * in an "error" line).
 */
int fetch_step(const struct fetch_step_args *a, char **ids, int n)
{
	struct step s = { .cache = a->cache, .max_use = a->max_use, .keep_free = a->keep_free, .room = a->room,
			  .deadline = now() + (double)a->timeout_ms / 1000 };
	char client[4096], client_cache[4200];
	unsigned applied;
	debuginfod_client *c;
	int r;

	/* Loaded before the step confines itself: the libraries are read where they are, nothing else is. */
	if (lib_open() < 0)
		return 1;
	s.cachefd = open(s.cache, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s.cachefd < 0)
		return printf("error the cache %s cannot be opened: %s\n", s.cache, strerror(errno)), 1;
	r = bound_files(&s);
	if (r < 0)
		return printf("error the step's files could not be bounded (RLIMIT_FSIZE): %s\n", strerror(-r)), 1;
	r = confine_fetch(s.cache, &applied);
	if (r < 0)
		return printf("error the step could not be confined: %s\n", r == -ENOSPC || r == -EPERM ?
			      "no user namespace (user.max_user_namespaces is 0 or used up, or they are not allowed here)" :
			      strerror(-r)), 1;
	/* The cache is this user's alone: the handler hands what a crash needs to its analysis (fetch.c). */
	umask(077);
	bound(&s);
	/* libdebuginfod's own cache, where a download lands before it is checked and linked into .build-id/: one per
	   step, so that what a killed step left is found by its age. */
	(void) snprintf(client, sizeof(client), "%s/.client", s.cache);
	(void) mkdir(client, 0700);
	remove_stale(client);
	(void) snprintf(client_cache, sizeof(client_cache), "%s/XXXXXX", client);
	if (!mkdtemp(client_cache))
		return printf("error cannot make a directory for the downloads in %s: %s\n", client, strerror(errno)), 1;
	(void) setenv("DEBUGINFOD_URLS", a->urls, 1);
	(void) setenv("DEBUGINFOD_CACHE_PATH", client_cache, 1);
	c = lib.begin();
	if (!c)
		return printf("error libdebuginfod could not start\n"), 1;
	fetch_all(&s, c, ids, n);
	lib.end(c);
	remove_tree(AT_FDCWD, client_cache);
	bound(&s);
	return 0;
}
