/*
 * lost.c: socket mode's server, for a crash whose process ended without telling it the entry was written (killed
 * at SocketTimeoutSec, killed by anyone else, died), writes that crash's one entry. The process may have got
 * further than the server saw: its entry out, or its core under its name. Pipe mode's counterpart, where the next
 * handler names a dead one's crash, is crash_report_orphans() (entry.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture-internal.h"
#include "capture.h"
#include "ledger.h"
#include "tidy.h"
#include "report.h"
#include "store.h"

/* How long an entry a dead handler was sending (its record says so) may take to show in the journal. */
#define LOST_ENTRY_WAIT_MS 1000

/*
 * Whether the entry of crash pid is out after all, sent by its handler (pid handler) before it died: by its id
 * (entry, "" where the record had none), waiting for it where the handler's record said it was being sent
 * (sending), else at one look; by the pids where there is no id; and in the kernel log, where it went when journald
 * did not take it. For both modes: the server's naming of a crash (capture_lost) and the next pipe-mode handler's
 * (crash_report_orphans).
 */
bool crash_entry_out(pid_t handler, pid_t pid, const char *entry, bool sending)
{
	char match[64], and_match[32];

	if (entry[0])
		(void) snprintf(match, sizeof(match), "CORESINK_ENTRY=%s", entry);
	else
		(void) snprintf(match, sizeof(match), "_PID=%d", (int)handler);
	(void) snprintf(and_match, sizeof(and_match), "COREDUMP_PID=%d", (int)pid);
	if (journal_listening() && journal_find(match, and_match, sending ? LOST_ENTRY_WAIT_MS : 0) == 0)
		return true;
	return kmsg_find_entry(handler, pid) == 1;
}

/*
 * The record of the dead process (pid handler), taken out of the ledger in the directory (dirfd) so that nobody
 * counts it, into *f: its entry's id, and whether it was sending it. *f empty when there is no ledger or no record.
 */
static void take_record(int dirfd, pid_t handler, struct inflight *f)
{
	struct session q;

	*f = (struct inflight) { .pid = 0 };
	if (session_open(&q, dirfd) < 0)
		return;
	if (session_take(&q, handler, f) != 1)
		*f = (struct inflight) { .pid = 0 };
	fd_close(&q.statefd);
}

/*
 * The core a dead handler stored for crash c, in the directory (dirfd, named directory): the one whose name holds
 * the crash's pid and time (name_format() writes no other), whatever the ledger heard; its path into path, its
 * size into *size, and the id of the entry it was stored for into entry: the ledger's (entry), where the core's own
 * record names it (xattr.c); an older coresink's core, whose record is the id itself, that id. The entry written for
 * it now carries the id, which the core's readers match it by. For both modes (crash_report_orphans, capture_lost).
 * 0, -ENOENT, or -errno.
 */
int crash_core_of(int dirfd, const char *directory, const struct ledger_crash *c, const char *entry,
		  struct named_core *nc)
{
	char name[NAME_MAX_LEN], record[XATTR_RECORD_MAX + 16];
	struct stat st;
	int r = vacuum_name_of_crash(dirfd, c->pid, c->time, name, sizeof(name));
	_cleanup_close_ int fd = -1;

	*nc = (struct named_core) { .size = 0 };
	if (r < 0)
		return r;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (xattr_entry(fd, record, sizeof(record)) == 0 && xattr_names_entry(record, entry))
		(void) snprintf(nc->entry, sizeof(nc->entry), "%s", entry);
	else if (strlen(record) == LEDGER_ENTRY_LEN && !strchr(record, ':'))
		(void) snprintf(nc->entry, sizeof(nc->entry), "%s", record);
	(void) snprintf(nc->path, sizeof(nc->path), "%s/%s", directory, name);
	nc->size = (uint64_t)st.st_size;
	return 0;
}

/*
 * Crash c, whose process (pid handler) ended without its entry (step, error: how), in its one entry: none when the
 * process's own is out; stored, naming the core, where the process had given it its name (the crash's pid and time
 * are in it); else failed. Counted as lost (metrics.c) when it gets that entry here.
 */
void capture_lost(const struct config *cf, pid_t handler, const struct ledger_crash *c, const char *step, int error)
{
	struct inflight f = { .pid = 0 };
	struct named_core nc = { .size = 0 };
	_cleanup_close_ int dirfd = store_open_dir(cf->directory);

	if (dirfd >= 0)
		take_record(dirfd, handler, &f);
	if (crash_entry_out(handler, c->pid, f.entry, f.sending))
		return;
	if (dirfd >= 0)
		(void) crash_core_of(dirfd, cf->directory, c, f.entry, &nc);
	(void) report_lost(c, step, error, &nc, cf->strategy);
	if (dirfd >= 0)
		(void) metrics_event(dirfd, cf, EVENT_LOST, 1);
}

/*
 * Socket mode's server: crash c let go without a core before any process of its own took it (step, error: no
 * process could be started, or its user's queue was full), in its one entry, and counted as refused.
 */
void capture_refused(const struct config *cf, const struct ledger_crash *c, const char *step, int error)
{
	const struct named_core none = { .size = 0 };
	_cleanup_close_ int dirfd = -1;

	(void) report_lost(c, step, error, &none, cf->strategy);
	dirfd = store_open_dir(cf->directory);
	if (dirfd >= 0)
		(void) metrics_event(dirfd, cf, EVENT_REFUSED, 1);
}
