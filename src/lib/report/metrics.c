/*
 * metrics.c: the counters of what came of the crashes, for Prometheus. They live in METRICS_STATE in the core
 * directory (root's, 0600, statefile.c), not in the ledger: they are counted once the crash's entry is out, off the
 * capture's way, under the file's own lock, and the exposition (promfile.c) is rewritten under the same lock, so
 * that the last file written always holds the last counts. A state file a power cut tore (no "end" line) counts from
 * zero again: a counter reset, which Prometheus's rate() understands; otherwise no counter ever goes down.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base.h"
#include "metrics.h"
#include "store.h"

#define STATE_MAX 16384
#define STATE_VERSION "coresink-metrics 1"

static const char *const reasons[_REASON_MAX] = {
	[REASON_NONE] = "none", [REASON_MAX_CORE_SIZE] = "max_core_size", [REASON_MAX_USE] = "max_use",
	[REASON_KEEP_FREE] = "keep_free", [REASON_DISK_FULL] = "disk_full", [REASON_RLIMIT] = "rlimit",
	[REASON_CUT_SHORT] = "cut_short", [REASON_SILENT] = "silent",
	[REASON_RATE_EXECUTABLE] = "rate_limit_executable", [REASON_RATE_USER] = "rate_limit_user",
	[REASON_RATE_GLOBAL] = "rate_limit_global", [REASON_SIGNATURE] = "signature_limit",
	[REASON_STORAGE_NONE] = "storage_none", [REASON_ERROR] = "error",
};

/* The signals the kernel dumps a core for (signal(7), "Core"), in the order the label values are printed. */
static const struct { int sig; const char *name; } signals[METRICS_SIGNALS] = {
	{ SIGSEGV, "SIGSEGV" }, { SIGABRT, "SIGABRT" }, { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" },
	{ SIGILL, "SIGILL" }, { SIGTRAP, "SIGTRAP" }, { SIGSYS, "SIGSYS" }, { SIGQUIT, "SIGQUIT" },
	{ SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" },
};

static const char *const events[_EVENT_MAX] = {
	[EVENT_KERNEL_DROPPED] = "kernel_dropped", [EVENT_REFUSED] = "refused", [EVENT_LOST] = "lost",
};

/* The capture time's bounds, in seconds: a small core is let go within tens of ms, 1 GiB within about a second. */
const double metrics_bounds[METRICS_BUCKETS] = { 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120 };

const char *metrics_reason_name(enum metrics_reason r)
{
	return r < _REASON_MAX ? reasons[r] : "error";
}

/* The label of signal index i: the known ones, then "other", then "unknown". */
const char *metrics_signal_name(size_t i)
{
	return i < METRICS_SIGNALS ? signals[i].name : i == METRICS_SIGNALS ? "other" : "unknown";
}

size_t metrics_signal_index(int sig)
{
	if (sig <= 0)
		return METRICS_SIGNALS + 1;
	for (size_t i = 0; i < METRICS_SIGNALS; i++)
		if (signals[i].sig == sig)
			return i;
	return METRICS_SIGNALS;
}

/* Why the core was not stored whole, as the entry's sentence says it (report.c), in one word of the fixed set. */
enum metrics_reason metrics_reason_of(const struct outcome *o)
{
	static const enum metrics_reason by_limit[_LIMIT_MAX] = {
		[LIMIT_NONE] = REASON_ERROR, [LIMIT_KEEP_FREE] = REASON_KEEP_FREE, [LIMIT_MAX_USE] = REASON_MAX_USE,
		[LIMIT_MAX_CORE] = REASON_MAX_CORE_SIZE, [LIMIT_RLIMIT] = REASON_RLIMIT,
		[LIMIT_CUT_SHORT] = REASON_CUT_SHORT, [LIMIT_SILENT] = REASON_SILENT,
	};

	switch (o->result) {
	case RESULT_STORED:
		return REASON_NONE;
	case RESULT_SUPPRESSED:
		if (o->sig_dropped || !o->suppressed_by)
			return REASON_SIGNATURE;
		return strcmp(o->suppressed_by, "user") == 0 ? REASON_RATE_USER :
		       strcmp(o->suppressed_by, "global") == 0 ? REASON_RATE_GLOBAL : REASON_RATE_EXECUTABLE;
	case RESULT_SKIPPED:
		return REASON_RLIMIT;
	case RESULT_RECORDED:
		return REASON_STORAGE_NONE;
	case RESULT_TRUNCATED:
	case RESULT_DISCARDED:
		if (o->error)
			return REASON_ERROR;
		if (o->st.space_error)
			return REASON_DISK_FULL;
		return o->st.limit < _LIMIT_MAX ? by_limit[o->st.limit] : REASON_ERROR;
	default:
		return REASON_ERROR;
	}
}

static int find(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

/* One line of the state file into m; lines of a later version's counters are passed over. */
static void parse_line(struct metrics *m, const char *line)
{
	char a[32], b[32];
	uint64_t v;
	int i, j;

	if (sscanf(line, "crashes %31s %31s %" SCNu64, a, b, &v) == 3) {
		if ((i = result_from_string(a)) >= 0 && (j = find(reasons, _REASON_MAX, b)) >= 0)
			m->crashes[i][j] = v;
	} else if (sscanf(line, "signal %31s %" SCNu64, a, &v) == 2) {
		for (size_t k = 0; k < METRICS_SIGNALS + 2; k++)
			if (strcmp(metrics_signal_name(k), a) == 0)
				m->signals[k] = v;
	} else if (sscanf(line, "event %31s %" SCNu64, a, &v) == 2) {
		if ((i = find(events, _EVENT_MAX, a)) >= 0)
			m->events[i] = v;
	} else if (sscanf(line, "bucket %d %" SCNu64, &i, &v) == 2) {
		if (i >= 0 && i <= METRICS_BUCKETS)
			m->buckets[i] = v;
	} else if (sscanf(line, "%31s %" SCNu64, a, &v) == 2) {
		uint64_t *one[] = { &m->input, &m->written, &m->removed, &m->removed_bytes, &m->capture_us,
				    &m->last_time };
		static const char *const names[] = { "input", "written", "removed", "removed_bytes", "capture_us",
						     "last_time" };

		if ((i = find(names, ELEMENTSOF(names), a)) >= 0)
			*one[i] = v;
	}
}

/* The counters from the state file's text; all zero unless it is whole (its version first, "end" last). */
static void parse(struct metrics *m, char *text)
{
	char *line, *save = NULL;
	size_t n = strlen(text);

	*m = (struct metrics) { 0 };
	if (strncmp(text, STATE_VERSION "\n", sizeof(STATE_VERSION)) != 0 || n < 5 || strcmp(text + n - 4, "end\n") != 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		parse_line(m, line);
}

static int save(int fd, const struct metrics *m)
{
	char *text = malloc(STATE_MAX);
	size_t n = 0;
	int r;

	if (!text)
		return -ENOMEM;
#define PUT(...) (n += (size_t)snprintf(text + (n < STATE_MAX ? n : STATE_MAX), n < STATE_MAX ? STATE_MAX - n : 0, \
					 __VA_ARGS__))
	PUT("%s\n", STATE_VERSION);
	for (int i = 0; i < _RESULT_MAX; i++)
		for (int j = 0; j < _REASON_MAX; j++)
			if (m->crashes[i][j])
				PUT("crashes %s %s %" PRIu64 "\n", result_to_string(i), reasons[j], m->crashes[i][j]);
	for (size_t k = 0; k < METRICS_SIGNALS + 2; k++)
		if (m->signals[k])
			PUT("signal %s %" PRIu64 "\n", metrics_signal_name(k), m->signals[k]);
	for (int i = 0; i < _EVENT_MAX; i++)
		PUT("event %s %" PRIu64 "\n", events[i], m->events[i]);
	for (int i = 0; i <= METRICS_BUCKETS; i++)
		PUT("bucket %d %" PRIu64 "\n", i, m->buckets[i]);
	PUT("input %" PRIu64 "\nwritten %" PRIu64 "\nremoved %" PRIu64 "\nremoved_bytes %" PRIu64 "\ncapture_us %" PRIu64
	    "\nlast_time %" PRIu64 "\nend\n", m->input, m->written, m->removed, m->removed_bytes, m->capture_us,
	    m->last_time);
#undef PUT
	r = n < STATE_MAX ? statefile_rewrite(fd, text, n) : -ENOBUFS;
	free(text);
	return r;
}

/* The counters of the state file open as fd into m (all zero where it is not whole). 0 or -errno. */
static int load(int fd, struct metrics *m)
{
	char *text = malloc(STATE_MAX + 1);
	ssize_t n = 0;

	*m = (struct metrics) { 0 };
	if (!text)
		return -ENOMEM;
	if (lseek(fd, 0, SEEK_SET) < 0)
		n = errno > 0 ? -errno : -EIO;
	else
		n = io_read_full(fd, text, STATE_MAX, NULL);
	if (n < 0) {
		free(text);
		return (int)n;
	}
	text[n] = '\0';
	parse(m, text);
	free(text);
	return 0;
}

/*
 * Under the state file's lock: the counters read, changed by add (with its arg), saved, and the exposition
 * rewritten (MetricsFile=) from them. 0, or the first -errno.
 */
static int update(int dirfd, const struct config *c, void (*add)(struct metrics *m, const void *arg), const void *arg)
{
	struct metrics m = { 0 };
	_cleanup_close_ int fd = statefile_open(dirfd, METRICS_STATE);
	int r, e;

	if (fd < 0)
		return fd;
	r = flock(fd, LOCK_EX) < 0 ? -errno : load(fd, &m);
	if (r == 0) {
		add(&m, arg);
		r = save(fd, &m);
		e = metrics_export(dirfd, c, &m);
		r = r < 0 ? r : e;
	}
	return r;
}

static void add_crash(struct metrics *m, const void *arg)
{
	const struct metrics_crash *x = arg;
	size_t b = 0;

	m->crashes[x->result < _RESULT_MAX ? x->result : RESULT_FAILED][x->reason < _REASON_MAX ? x->reason :
									  REASON_ERROR]++;
	m->signals[metrics_signal_index(x->signal)]++;
	m->input += x->input;
	m->written += x->written;
	m->removed += x->removed;
	m->removed_bytes += x->removed_bytes;
	while (b < METRICS_BUCKETS && (double)x->capture_us / 1e6 > metrics_bounds[b])
		b++;
	m->buckets[b]++;
	m->capture_us += x->capture_us;
	if (x->time > m->last_time)
		m->last_time = x->time;
}

/* Counts one crash in the core directory's counters, and rewrites MetricsFile=. 0 or -errno. */
int metrics_crash(int dirfd, const struct config *c, const struct metrics_crash *m)
{
	return update(dirfd, c, add_crash, m);
}

struct event_arg {
	enum metrics_event e;
	uint64_t n;
};

static void add_event(struct metrics *m, const void *arg)
{
	const struct event_arg *x = arg;

	m->events[x->e] += x->n;
}

/* Counts n events of e (no crash's own entry), and rewrites MetricsFile=. 0 or -errno. */
int metrics_event(int dirfd, const struct config *c, enum metrics_event e, uint64_t n)
{
	const struct event_arg x = { e, n };

	if (e >= _EVENT_MAX)
		return -EINVAL;
	return update(dirfd, c, add_event, &x);
}

/* The counters as they stand, for coresinkctl metrics: read under a shared lock, never a half-written file. */
int metrics_read(int dirfd, struct metrics *m)
{
	_cleanup_close_ int fd = openat(dirfd, METRICS_STATE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	*m = (struct metrics) { 0 };
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	return flock(fd, LOCK_SH) < 0 ? -errno : load(fd, m);
}

/* The event's name, for the exposition's label. */
const char *metrics_event_name(enum metrics_event e)
{
	return e < _EVENT_MAX ? events[e] : "";
}
