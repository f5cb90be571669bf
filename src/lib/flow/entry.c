/*
 * entry.c: what a crash leaves behind once its process is let go: its stack trace (made in the sandbox), its one
 * journal entry (with the core in it for Storage=journal, or the core published after all when journald does not
 * take it), and pipe mode's report of the crashes the kernel dropped meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyse.h"
#include "intake.h"
#include "sandbox.h"
#include "capture-internal.h"
#include "capture.h"
#include "config.h"
#include "ledger.h"
#include "tidy.h"
#include "report.h"
#include "store.h"
#include "write.h"

/*
 * What the fetch step may add to its cache on the file system of c's Directory (KeepFree= in bytes into
 * keep_free): the room a capture's chunk would have there, every capture in flight counted; the step, which cannot
 * read the ledger, is bounded by it and checks KeepFree= itself as it downloads. 0 where it cannot be known.
 */
static uint64_t fetch_room(const struct config *c, int dirfd, uint64_t *keep_free)
{
	struct side_use u;
	struct side_space l;
	enum limit which;

	*keep_free = UINT64_MAX;
	if (config_limits(c, dirfd, &l) < 0 || session_used(dirfd, &u) < 0)
		return 0;
	*keep_free = l.keep_free;
	/* MaxUse= is the cores': the cache has its own bound (DebuginfodMaxUse=). */
	return side_room(dirfd, &c->keep_free, NULL, &u, &which);
}

/*
 * The fetch step for the n modules of ask, run here with c's servers, deadline and bounds, into c's cache (made
 * where missing): what came of it in said. The handler's in pipe mode, the door's (netdoor.c) in socket mode under
 * its units.
 */
void crash_fetch_run(const struct config *c, const struct fetch_need *ask, unsigned n, char *said, size_t len)
{
	struct fetch_job j = { .timeout_ms = (unsigned)c->debuginfod_ms, .max_use = c->debuginfod_max_use,
			       .needs = ask, .n = n };
	char urls[1024], handler[4096], cache[PATH_MAX + 16];
	int hn = program_path("coresink", handler, sizeof(handler));
	_cleanup_close_ int dirfd = store_open_dir(c->directory), cachefd = -1;
	int r;

	if ((r = fetch_urls(c->debuginfod_urls, urls, sizeof(urls))) < 0 || hn < 0 || dirfd < 0 ||
	    (r = creds_system_user(FETCH_USER, &j.uid, &j.gid)) < 0 || (cachefd = fetch_cache(dirfd, j.uid, j.gid)) < 0) {
		(void) snprintf(said, len, "not fetched: %s", hn < 0 ? "the handler's path is unknown" :
			       r == -ENOENT && urls[0] == '\0' ? "no server in /etc/debuginfod/*.urls" :
			       dirfd < 0 ? "no core directory" : cachefd < 0 && r == 0 ? "no cache in the core directory" :
			       "no user " FETCH_USER " (make install and the package make it)");
	} else {
		(void) snprintf(cache, sizeof(cache), "%s/%s", c->directory, FETCH_DIR);
		j.handler = handler;
		j.cache = cache;
		j.urls = urls;
		j.room = fetch_room(c, dirfd, &j.keep_free);
		r = fetch_run(&j, said, len);
		if (r < 0)
			(void) snprintf(said, len, "not fetched: the step could not run: %s", strerror(-r));
	}
}

/*
 * Which of the needs the cache in cachefd lacks (into ask), then the fetch step for them, here or through the door
 * to the network (socket mode under its units): what came of it in said. The servers are asked only for what the
 * cache has not got, so that every crash of one program fetches a file once.
 */
static void fetch_missing(struct crash *cr, int cachefd, const struct fetch_need *needs, int n, char *said,
			  size_t len)
{
	struct fetch_need ask[FETCH_NEEDS_MAX];
	char fetched[1400] = "";
	unsigned k = 0;

	for (int i = 0; i < n; i++)
		if (!fetch_have(cachefd, &needs[i], (uint64_t)time(NULL)))
			ask[k++] = needs[i];
	if (n == 0 || k == 0) {
		(void) snprintf(said, len, n ? "all %d from the cache" : "none needed: every module has symbols or "
			       "debug info here", n);
		return;
	}
	if (cr->given.netdoor)
		(void) netdoor_fetch(cr->given.netdoor, ask, k, (unsigned)cr->c.debuginfod_ms, fetched, sizeof(fetched));
	else
		crash_fetch_run(&cr->c, ask, k, fetched, sizeof(fetched));
	(void) snprintf(said, len, "%d module(s) without debug info, %d from the cache; %s", n, n - (int)k, fetched);
}

/*
 * The fetch step (DebuginfodURLs=), before the analysis: its first pass names the modules that need debug info
 * from elsewhere, which fetch_missing() asks the servers for; what the cache then has of them is opened here and
 * handed to the analysis (ff): the cache is the fetch user's alone. A crash in another root (a container's, and
 * every crash under coresink.service, whose mount namespace is its own) is no exception: a file is taken by its
 * build-id, wherever the process's root is.
 */
static void fetch_debuginfo(struct crash *cr, struct analysis_opts *ao, struct fetch_files *ff)
{
	struct fetch_need needs[FETCH_NEEDS_MAX];
	struct analysis first;
	uint64_t t0 = clock_us();
	uid_t fu;
	gid_t fg;
	_cleanup_close_ int cachefd = -1;
	int n, r;

	if (!cr->c.debuginfod_urls[0])
		return;
	if (creds_system_user(FETCH_USER, &fu, &fg) < 0 || (cachefd = fetch_cache(cr->held.dirfd, fu, fg)) < 0) {
		(void) snprintf(cr->a.debuginfo, sizeof(cr->a.debuginfo), "not fetched: no user %s or no cache in %.512s",
				FETCH_USER, cr->c.directory);
		return;
	}
	ao->needs_only = true;
	r = analysis_run(cr->held.corefd, ao, &first);
	ao->needs_only = false;
	/* A pass that could not run named nothing: that is not "none needed". */
	if (r < 0 || first.confined == 0) {
		(void) snprintf(cr->a.debuginfo, sizeof(cr->a.debuginfo),
				"not fetched: the pass that names the modules did not run: %s",
				r < 0 ? strerror(-r) : first.why[0] ? first.why : "it never started");
	} else {
		n = first.needs ? fetch_parse_needs(first.needs, needs, FETCH_NEEDS_MAX) : 0;
		fetch_missing(cr, cachefd, needs, n, cr->a.debuginfo, sizeof(cr->a.debuginfo));
		if (fetch_open(cachefd, needs, n, ff) > 0)
			ao->fetched = ff;
		if (ff->unopened) {
			size_t used = strlen(cr->a.debuginfo);

			(void) snprintf(cr->a.debuginfo + used, sizeof(cr->a.debuginfo) - used,
					"; %d in the cache not opened: %s", ff->unopened, strerror(-ff->unopened_error));
		}
	}
	analysis_free(&first);
	cr->a.debuginfo_us = clock_us() - t0;
}

/*
 * The stack trace of the stored core, in the sandbox: as the crashing user when the crash is theirs to see, as the
 * dedicated analysis user otherwise (root's, a system user's, a setuid program's crash): never as root, never as
 * another system user, never as nobody, whose other processes could then reach it.
 */
void crash_analyse(struct crash *cr)
{
	struct analysis_opts ao = { .exe = cr->given.pi.exe, .core_size = cr->o.st.bytes,
				    .timeout_ms = (unsigned)cr->c.stack_trace_ms,
				    .root_fd = cr->given.pi.complete ? cr->given.pi.root_fd : -1,
				    .mapped = cr->given.have_mapped ? &cr->given.mapped : NULL };
	char search[PATH_MAX + 48], debuginfo[sizeof(cr->a.debuginfo)];
	struct fetch_files ff = { .n = 0 };
	struct stat st;
	uint64_t debuginfo_us;
	int r;

	if (!cr->c.stack_trace || cr->held.corefd < 0 || (cr->o.path[0] == '\0' && !cr->held.have_unpublished))
		return;
	/* The core it reads: the stored one, or the one made of the stacks for a core compressed as it came. */
	ao.core_size = fstat(cr->held.corefd, &st) == 0 ? (uint64_t)st.st_size : cr->o.st.bytes;
	if (ao.core_size > cr->c.stack_trace_max) {
		(void) snprintf(cr->a.why, sizeof(cr->a.why), "not made: the core is larger than StackTraceMaxSize");
		return;
	}
	if (crash_owner_sees(cr)) {
		ao.uid = cr->given.k.uid;
		ao.gid = cr->given.k.gid;
	} else if ((r = analysis_user(&ao.uid, &ao.gid)) < 0) {
		(void) snprintf(cr->a.why, sizeof(cr->a.why), "not made: no user %s to run it as (%s)", ANALYSIS_USER,
				r == -ENOENT ? "make install creates it" : strerror(-r));
		return;
	}
	fetch_debuginfo(cr, &ao, &ff);
	/*
	 * The modules kept for earlier crashes (KeepModules=), by build-id: where a path leads to another build now, a
	 * retrace finds the one that ran there. Not for a process in another root, whose paths are not this side's.
	 */
	if (ao.root_fd < 0 && snprintf(search, sizeof(search), "%s/%s", cr->c.directory, MODSTORE_DIR) <
				      (int)sizeof(search))
		ao.debug_dir = search;
	/* analysis_run() starts the result afresh: what the fetch step said is kept aside. */
	(void) snprintf(debuginfo, sizeof(debuginfo), "%s", cr->a.debuginfo);
	debuginfo_us = cr->a.debuginfo_us;
	r = analysis_run(cr->held.corefd, &ao, &cr->a);
	fetch_files_close(&ff);
	if (r < 0)
		(void) snprintf(cr->a.why, sizeof(cr->a.why), "not made: %s", strerror(-r));
	(void) snprintf(cr->a.debuginfo, sizeof(cr->a.debuginfo), "%s", debuginfo);
	cr->a.debuginfo_us = debuginfo_us;
}

/*
 * The capture's session ended in its last write of the ledger (session_end), where pipe mode also looks at what the
 * kernel dropped over kernel.core_pipe_limit since the last look, reported in one entry of its own. One handler a
 * second looks, after its own crash was let go and logged. A new ledger looks from a second before this crash (%t
 * has whole seconds): the storm that brought this handler may have made it.
 */
void crash_end_session(struct crash *cr)
{
	const uint64_t now_us = clock_realtime_us(), up_usec = clock_us();
	uint64_t ago_usec, now_s = now_us / 1000000;
	struct kskip_when w;
	struct kskip ks;

	if (!cr->held.have_session)
		return;
	w.now_ms = now_us / 1000;
	ago_usec = (now_s > cr->given.k.time ? now_s - cr->given.k.time : 0) * 1000000 + 1000000;
	w.storm_usec = up_usec > ago_usec ? up_usec - ago_usec : 0;
	cr->held.have_session = false;
	if (session_end(&cr->held.q, cr->o.socket ? NULL : &w, &ks) == 1) {
		(void) report_kernel_skips(&ks, kskip_pipe_limit());
		if (ks.count && cr->held.dirfd >= 0)
			(void) metrics_event(cr->held.dirfd, &cr->c, EVENT_KERNEL_DROPPED, ks.count);
	}
}

/*
 * Pipe mode: the crashes whose handler died before its entry (killed, out of memory, crashed itself), found in the
 * ledger by this handler, each in the one entry it never got: stored, where its core had been given its name and is
 * still there (the name comes before the ledger hears of it), else failed. The ledger gave each to this handler alone.
 */
void crash_report_orphans(struct crash *cr)
{
	unsigned said = 0;

	for (unsigned i = 0; cr->held.have_session && i < cr->held.q.n_lost; i++) {
		const struct inflight *f = &cr->held.q.lost[i];
		struct named_core nc;

		if (crash_entry_out(f->pid, f->crash.pid, f->entry, f->sending))
			continue;
		(void) crash_core_of(cr->held.dirfd, cr->c.directory, &f->crash, f->entry, &nc);
		(void) report_orphan(&f->crash, f->pid, &nc);
		said++;
	}
	cr->held.q.n_lost = 0;
	if (said && cr->held.dirfd >= 0)
		(void) metrics_event(cr->held.dirfd, &cr->c, EVENT_LOST, said);
}

/*
 * The crash's signature (signature.c), from its stack trace, counted in the directory's store: how often this
 * machine saw it, since when. A core stored past MaxCoresPerSignature= in its window is removed now that its trace is
 * made; its entry stays whole and says why.
 */
void crash_sign(struct crash *cr)
{
	const char *name = strrchr(cr->o.path, '/');
	bool stored = name && !cr->o.in_journal && (cr->o.result == RESULT_STORED || cr->o.result == RESULT_TRUNCATED);
	int r;

	signature_make(cr->a.trace, cr->a.canon, cr->given.k.signal, cr->given.pi.exe, &cr->o.sig);
	cr->o.have_sig = true;
	if (cr->held.dirfd < 0)
		return;
	cr->o.sig_max = cr->c.max_per_signature;
	r = sigstore_note(cr->held.dirfd, cr->o.sig.hex, cr->o.sig.keys, cr->given.k.time, stored, cr->c.max_per_signature,
			  cr->c.signature_interval, &cr->o.seen);
	cr->o.seen_error = r < 0 ? r : 0;
	if (r < 0 || cr->o.seen.keep || !stored)
		return;
	if (unlinkat(cr->held.dirfd, name + 1, 0) < 0)
		return;
	cr->o.sig_dropped = true;
	cr->o.result = RESULT_SUPPRESSED;
	cr->o.path[0] = '\0';
}

/*
 * The crash counted for Prometheus (metrics.c), once its entry is out: off the capture's way, with no ledger write.
 * Where that fails, one entry says so; the crash's own entry is whole either way.
 */
void crash_count(struct crash *cr)
{
	const struct metrics_crash m = {
		.result = cr->o.result, .reason = metrics_reason_of(&cr->o), .signal = cr->given.k.signal,
		.input = cr->o.st.input, .written = cr->o.path[0] ? cr->o.disk : 0, .removed = cr->o.vacuumed,
		.removed_bytes = cr->o.vacuumed_bytes, .time = cr->given.k.time,
		.capture_us = cr->released_us > cr->given.started_us ? cr->released_us - cr->given.started_us : 0,
	};
	/* The crash's own directory fd, or one of this function's. */
	_cleanup_close_ int own = cr->held.dirfd >= 0 ? -1 : store_open_dir(cr->c.directory);
	const int dirfd = cr->held.dirfd >= 0 ? cr->held.dirfd : own;
	int r = dirfd < 0 ? dirfd : metrics_crash(dirfd, &cr->c, &m);
	struct diag d = { 0 };

	if (r == 0)
		return;
	diag_add(&d, "counting the crash in %s/%s and writing MetricsFile=%s: %s", cr->c.directory, METRICS_STATE,
		 cr->c.metrics_file, strerror(-r));
	(void) report_diag(&d, "the metrics", "their counts or file may lag by this crash");
}

/* How long journald may take to write an entry with a core in it, before the core is stored as a file instead. */
#define JOURNAL_WRITE_MS 5000

/*
 * The crash's entry. A core for the journal goes in it; when journald does not take it (gone, or refusing so large
 * an entry), the entry says why, and -EMSGSIZE asks the caller to publish the core as a file after all and send the
 * entry again without it. 0 or -EMSGSIZE.
 */
int crash_log(struct crash *cr)
{
	char match[64];
	int r;

	/*
	 * A handler killed from here may have its entry out: who names the crash waits for it first (a published core
	 * said so already, in the same write).
	 */
	if (cr->held.have_session)
		(void) session_sending(&cr->held.q);
	r = report_crash(&cr->given.k, &cr->o, &cr->given.pi, &cr->a, cr->held.corefd);
	if (!cr->o.in_journal)
		return 0;
	/* Taken is not written: journald drops an entry larger than its journal files may grow, and says nothing. */
	(void) snprintf(match, sizeof(match), "CORESINK_ENTRY=%s", cr->o.entry_id);
	if (r == 0 && (r = journal_find(match, NULL, JOURNAL_WRITE_MS)) == 0)
		return 0;
	cr->o.in_journal = false;
	(void) snprintf(cr->o.storage_note, sizeof(cr->o.storage_note), "journald did not %s the core: %s",
			r == -ETIMEDOUT ? "write" : "take", r == -ETIMEDOUT ? "the entry is not in the journal (larger "
			"than its files may grow?)" : strerror(-r));
	return -EMSGSIZE;
}
