/*
 * report.c: the one journal entry each crash gets, with the COREDUMP_* fields coredumpctl reads, and the entry
 * for configuration and argument problems.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "journal.h"
#include "report.h"

static void signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;

	if (abbrev)
		(void) snprintf(buf, len, "SIG%s", abbrev);
	else
		(void) snprintf(buf, len, "%d", sig);
}

static void add_process_fields(struct fields *f, const struct kargs *k, const char *exe, const char *sig)
{
	fields_add(f, "MESSAGE_ID=" CORESINK_MESSAGE_ID);
	fields_add(f, "COREDUMP_PID=%d", (int)k->pid);
	fields_add(f, "COREDUMP_UID=%u", (unsigned)k->uid);
	fields_add(f, "COREDUMP_GID=%u", (unsigned)k->gid);
	fields_add(f, "COREDUMP_SIGNAL=%d", k->signal);
	fields_add(f, "COREDUMP_SIGNAL_NAME=%s", sig);
	fields_add(f, "COREDUMP_TIMESTAMP=%llu", (unsigned long long)k->time * 1000000ULL);
	fields_add(f, "COREDUMP_RLIMIT=%llu", (unsigned long long)k->rlimit);
	fields_add(f, "COREDUMP_HOSTNAME=%s", k->hostname);
	fields_add(f, "COREDUMP_COMM=%s", k->comm);
	if (exe[0])
		fields_add(f, "COREDUMP_EXE=%s", exe);
}

static void add_outcome_fields(struct fields *f, const struct outcome *o)
{
	const char *result = o->path[0] ? (o->st.truncated ? "truncated" : "stored") : "failed";

	fields_add(f, "CORESINK_RESULT=%s", result);
	fields_add(f, "CORESINK_SIZE=%llu", (unsigned long long)o->st.bytes);
	fields_add(f, "CORESINK_STRATEGY=%s", strategy_to_string(o->strategy));
	fields_add(f, "CORESINK_CHUNKS=%lu", o->st.chunks);
	/* Data-moving syscalls, input side then file side: what the strategy cost. */
	fields_add(f, "CORESINK_CALLS=%lu %lu", o->st.in_calls, o->st.out_calls);
	if (o->path[0])
		fields_add(f, "COREDUMP_FILENAME=%s", o->path);
	if (o->st.truncated)
		fields_add(f, "COREDUMP_TRUNCATED=1");
	if (o->st.fell_back)
		fields_add(f, "CORESINK_FALLBACK=readwrite (splice: %s)", strerror(o->st.fallback_error));
	if (o->st.prealloc_fallback)
		fields_add(f, "CORESINK_PREALLOC=ftruncate (fallocate: %s)", strerror(EOPNOTSUPP));
	if (o->error)
		fields_add(f, "CORESINK_ERROR=%s: %s", o->step, strerror(o->error));
}

/* Says in one sentence what happened, naming the process the way systemd-coredump does. */
static void add_message(struct fields *f, const struct kargs *k, const struct outcome *o, const char *sig)
{
	char head[160];

	(void) snprintf(head, sizeof(head), "Process %d (%.32s) of user %u dumped core (%s)", (int)k->pid, k->comm,
			(unsigned)k->uid, sig);
	if (!o->path[0])
		fields_add(f, "MESSAGE=%s; not stored: %s: %s.", head, o->step ? o->step : "error",
			   strerror(o->error));
	else if (o->st.truncated && o->st.space_error)
		fields_add(f, "MESSAGE=%s; truncated to %llu bytes in %s: %s.", head,
			   (unsigned long long)o->st.bytes, o->path, strerror(o->st.space_error));
	else if (o->st.truncated)
		fields_add(f, "MESSAGE=%s; truncated to %llu bytes in %s: keeping %llu bytes free (KeepFree).",
			   head, (unsigned long long)o->st.bytes, o->path, (unsigned long long)o->st.reserve);
	else if (o->error)
		fields_add(f, "MESSAGE=%s; %llu bytes stored in %s, then %s failed: %s.", head,
			   (unsigned long long)o->st.bytes, o->path, o->step, strerror(o->error));
	else
		fields_add(f, "MESSAGE=%s; %llu bytes stored in %s.", head, (unsigned long long)o->st.bytes,
			   o->path);
}

/* Logs the crash: one entry, whatever the outcome. 0 journald, 1 kernel log, or -errno. */
int report_crash(const struct kargs *k, const struct outcome *o)
{
	struct fields f;
	char sig[32];
	int r;

	signal_name(k->signal, sig, sizeof(sig));
	fields_init(&f, o->path[0] && !o->st.truncated ? LOG_CRIT : LOG_ERR);
	add_message(&f, k, o, sig);
	add_process_fields(&f, k, o->exe, sig);
	add_outcome_fields(&f, o);
	r = journal_send(&f);
	fields_free(&f);
	return r;
}

/* Logs every problem in d as one warning entry about what (the config file, the arguments). */
int report_diag(const struct diag *d, const char *what)
{
	char text[DIAG_MAX * DIAG_LEN / 2];
	size_t n = 0;
	struct fields f;
	int r;

	if (diag_count(d) == 0)
		return 0;
	text[0] = '\0';
	for (int i = 0; i < d->n && n < sizeof(text); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s", i ? "; " : "", d->msg[i]);
	fields_init(&f, LOG_WARNING);
	fields_add(&f, "MESSAGE=%d problem(s) with %s, defaults used, capture goes on: %s%s", diag_count(d), what,
		   text, d->dropped ? "; ..." : "");
	r = journal_send(&f);
	fields_free(&f);
	return r;
}
