/*
 * inflight.c: what coresinkctl shows of crashes still being captured: each handler alive records its crash in the
 * ledger as it begins (pid, user, signal, when, comm) and what its capture holds so far as it goes (the engine's
 * reservations, chunk by chunk), in both modes. The ledger is root's: only root sees captures in progress. The
 * executable is read from /proc while the process is there, and only while its comm is the one recorded: the
 * pid of a process that is gone may be another's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "inflight.h"
#include "ledger.h"
#include "intake.h"

/* The executable of pid into exe, where pid's comm is still comm; "" otherwise. */
static void exe_of(pid_t pid, const char *comm, char *exe, size_t len)
{
	char path[64], now[32] = "";
	ssize_t n;

	exe[0] = '\0';
	(void) snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (io_read_text(path, now, sizeof(now)) < 0)
		return;
	now[strcspn(now, "\n")] = '\0';
	if (strcmp(now, comm) != 0)
		return;
	(void) snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, len - 1);
	exe[n > 0 ? n : 0] = '\0';
}

static bool alive(const struct inflight *f)
{
	uint64_t start;

	return proc_start_time(f->pid, &start) == 0 && start == f->start;
}

/*
 * The captures in progress in the core directory dirfd, oldest crash first: 0, or -errno where the ledger could not
 * be read (-EACCES: it is root's; -ENOENT: no handler ever wrote one, so none is in progress either).
 */
int captures_now(int dirfd, struct captures_now *v)
{
	struct ledger *l = malloc(sizeof(*l));
	int r = l ? ledger_read(dirfd, l) : -ENOMEM;
	struct stat st = { .st_dev = 0 };

	(void) fstat(dirfd, &st);
	v->n = 0;
	for (size_t i = 0; r == 0 && i < l->n_inflight && v->n < INFLIGHT_SHOWN_MAX; i++) {
		const struct inflight *f = &l->inflight[i];
		struct capture_now *c = &v->c[v->n];

		if (f->crash.pid <= 0 || !alive(f))
			continue;
		*c = (struct capture_now) { .pid = f->crash.pid, .handler = f->pid, .uid = f->crash.uid,
					    .gid = f->crash.gid, .sig = (int)f->crash.signal,
					    .usec = f->crash.time * 1000000,
					    /* A lazy capture's record says nothing of its progress: what its files hold. */
					    .bytes = f->lazy ? ledger_live_bytes(f->pid, st.st_dev) : f->bytes,
					    .socket = f->crash.by_server, .stored = f->stored != 0 };
		(void) snprintf(c->comm, sizeof(c->comm), "%s", f->crash.comm);
		exe_of(c->pid, c->comm, c->exe, sizeof(c->exe));
		v->n++;
	}
	free(l);
	/* Oldest first, as list shows the journal's. */
	for (size_t i = 1; i < v->n; i++)
		for (size_t j = i; j > 0 && v->c[j - 1].usec > v->c[j].usec; j--) {
			struct capture_now t = v->c[j];

			v->c[j] = v->c[j - 1];
			v->c[j - 1] = t;
		}
	return r == -ENOENT ? 0 : r;
}

/* Where the capture stands, in list's COREFILE column. */
const char *capture_state(const struct capture_now *c)
{
	return c->stored ? "analysing" : "dumping";
}
