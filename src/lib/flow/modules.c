/*
 * modules.c: KeepModules=, after the trace: each module the analysis read from the file the process had mapped
 * while its path led elsewhere (deleted, gone, another build there now: stacktrace.c's "lost" record) is kept
 * beside the cores by its build-id (modstore.c), for gdb and a retrace, which have only the path. Copied from the
 * handler's own fd of the mapping (mapped.c), never through the path; only for a core stored as a file, which the
 * module's link belongs to; within MaxUse and above KeepFree, under the ledger's lock as a core's chunk is (the
 * copies hold it a moment: modules are rare, and mapped, so read from the page cache). The build-id
 * is the analysis's word: a lying one misnames a file the process could read anyway, in root's directory, and
 * elfutils' debuginfod reads each file's own build-id. What came of it is in the entry (CORESINK_MODULES_KEPT=).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "capture-internal.h"

/* The bytes the modules may take now, used bytes counted against MaxUse: the room a capture's chunk would have. */
static uint64_t room(const struct crash *cr, uint64_t used, uint64_t pending)
{
	return config_side_room(&cr->c, cr->held.dirfd, used, pending);
}

/* One "INDEX BUILD-ID NAME" line of the analysis, kept; what came of it appended to said. */
static void keep_one(struct crash *cr, const char *core, const char *line, gid_t gid, uint64_t *left, char *said,
		     size_t len)
{
	char id[257], name[256];
	unsigned i;
	struct stat st;
	uint64_t added = 0;
	int r;

	if (sscanf(line, "%u %256[0-9a-f] %255[^\n]", &i, id, name) != 3 || i >= cr->given.mapped.n)
		return;
	/* The trace's name says " (deleted)" where the path is gone; here the build-id says which file it was. */
	name[path_undeleted(name)] = '\0';
	r = fstat(cr->given.mapped.files[i].fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : 0;
	if (r == 0)
		r = modstore_keep(cr->held.dirfd, core, id, cr->given.mapped.files[i].path, cr->given.mapped.files[i].fd,
				  (uint64_t)st.st_size, left, gid, &added);
	(void) snprintf(said + strlen(said), len - strlen(said), "%s%s (%.16s...)%s%s", said[0] ? ", " : "", name, id,
			r == 0 ? "" : ": not kept, ", r == 0 ? "" : r == -EFBIG ? "no room in MaxUse, KeepFree or MaxCoreSize" :
			r == -EEXIST ? "another file with its build-id is kept" : strerror(-r));
}

/* Under the ledger's lock (session_spend()), so that the cores reserved meanwhile count, and the modules for them. */
static int keep_all(void *ctx, uint64_t used, uint64_t pending)
{
	struct crash *cr = ctx;
	const char *name = strrchr(cr->o.path, '/') + 1, *p;
	char line[600];
	uid_t uid;
	gid_t gid = 0;
	uint64_t left = room(cr, used, pending);

	if (analysis_user(&uid, &gid) < 0)
		gid = 0;
	/* One crash's modules no more than its core may take: a file the process mapped cost it nothing here. */
	if (left > cr->c.max_core_size)
		left = cr->c.max_core_size;
	for (p = cr->a.lost; *p;) {
		size_t n = strcspn(p, "\n");

		(void) snprintf(line, sizeof(line), "%.*s", (int)n, p);
		keep_one(cr, name, line, gid, &left, cr->o.modules, sizeof(cr->o.modules));
		p += n + (p[n] == '\n');
	}
	return 0;
}

void crash_keep_modules(struct crash *cr)
{
	int r;

	if (!cr->c.keep_modules || !cr->a.lost || !cr->given.have_mapped || !strrchr(cr->o.path, '/') || cr->o.in_journal ||
	    cr->held.dirfd < 0 || (cr->o.result != RESULT_STORED && cr->o.result != RESULT_TRUNCATED))
		return;
	/* Without the ledger nothing counts MaxUse: a core is stored anyway, the modules are not. */
	r = cr->held.have_session ? session_spend(&cr->held.q, keep_all, cr) : -ENOLCK;
	if (r < 0 && !cr->o.modules[0])
		(void) snprintf(cr->o.modules, sizeof(cr->o.modules), "none kept: %s",
				r == -ENOLCK ? "no ledger" : strerror(-r));
}
