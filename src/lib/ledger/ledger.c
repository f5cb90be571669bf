/*
 * ledger.c: the state shared by concurrent handlers: the bytes of stored cores, the captures in flight, and the
 * crash-rate windows. Text, one record a line, rewritten whole under the lock on the ledger file itself. A line
 * that does not parse is dropped: a damaged file costs some counts, never a core. The text ends in an "end" line:
 * a handler killed after its write and before the file was cut to it leaves the old text's tail after that line,
 * whole records of a moment ago (a dead handler's crash, named already) that must not come back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "ledger.h"
#include "store.h"

#define LEDGER_MAX_BYTES (64 * 1024)
#define LEDGER_END "end"
/*
 * The format's version, its first line ("ledger 2"): an older and a newer handler share the file during an upgrade.
 * Each reads the lines it knows and drops the others; fields it does not know at the end of a line it leaves out when
 * it writes the line again, and whoever reads that line takes their absence as an older handler's (ledger_parse).
 * 1: no version line. 2: the in-flight record's entry id from the capture's start, its "sending" flag, and whether
 * its handler writes its progress ("lazy", and what it may write ahead).
 */
#define LEDGER_VERSION 2

/* A process name in the ledger's text: hex, so that no byte of it (spaces, newlines) can break a line. "-": none. */
static void comm_to_hex(const char *comm, char *hex)
{
	size_t n = 0;

	for (; n < LEDGER_COMM_MAX && comm[n]; n++)
		(void) snprintf(hex + 2 * n, 3, "%02x", (unsigned char)comm[n]);
	if (n == 0)
		(void) snprintf(hex, 2, "-");
}

static void comm_from_hex(const char *hex, char *comm)
{
	size_t n = 0;
	unsigned b;

	while (n < LEDGER_COMM_MAX && sscanf(hex + 2 * n, "%2x", &b) == 1 && b != 0)
		comm[n++] = (char)b;
	comm[n] = '\0';
}

static void parse_line(struct ledger *l, const char *line)
{
	/* The pending count, the held core and the crash came later: a line without them (an older handler's) has none. */
	struct inflight f = { .pending = 0, .held = 0 };
	struct rate_entry e;
	uint64_t v, at;
	int pid, cpid = 0;
	char hex[2 * LEDGER_COMM_MAX + 1] = "-", entry[LEDGER_ENTRY_LEN + 1] = "-", by[2] = "p", sending[2] = "";
	char lazy[2] = "n";

	if (sscanf(line, "ledger %" SCNu64, &v) == 1) {
		l->version = (unsigned)v;
	} else if (sscanf(line, "published %" SCNu64, &v) == 1) {
		l->published = v;
	} else if (sscanf(line, "kmsg %" SCNu64 " %" SCNu64, &v, &at) == 2) {
		l->kmsg_seq = v;
		l->kmsg_at = at;
	} else if (sscanf(line, "inflight %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %d %" SCNu32 " %" SCNu32
			  " %" SCNu64 " %" SCNu32 " %" SCNu32 " %" SCNu64 " %30[-0-9a-f] %32[-0-9a-f] %1[ps] %1[yn] %1[yn] %"
			  SCNu64, &pid, &f.start, &f.bytes, &f.pending, &f.held, &cpid, &f.crash.uid, &f.crash.gid,
			  &f.crash.time, &f.crash.signal, &f.stored, &f.core_ino, hex, entry, by, sending, lazy, &f.ahead) >= 3 &&
		   pid > 0) {
		f.pid = pid;
		f.crash.pid = cpid > 0 ? cpid : 0;
		comm_from_hex(hex, f.crash.comm);
		f.crash.by_server = by[0] == 's';
		if (strlen(entry) == LEDGER_ENTRY_LEN && !strchr(entry, '-'))
			memcpy(f.entry, entry, sizeof(f.entry));
		/* An older handler's line has no flag: it wrote the id only as it sent the entry. */
		f.sending = sending[0] ? sending[0] == 'y' : f.entry[0] != '\0';
		/* An older handler's line is never lazy: it writes every chunk. */
		f.lazy = lazy[0] == 'y';
		if (l->n_inflight < LEDGER_INFLIGHT_MAX)
			l->inflight[l->n_inflight++] = f;
	} else if (sscanf(line, "rate %" SCNx64 " %" SCNu64 " %" SCNu32 " %" SCNu32, &e.key, &e.start, &e.count,
			  &e.suppressed) == 4) {
		if (l->n_rate < LEDGER_RATE_MAX)
			l->rate[l->n_rate++] = e;
	}
}

/* Reads the records of text (NUL-terminated) into l, which it clears first. */
void ledger_parse(struct ledger *l, const char *text)
{
	char line[512];

	memset(l, 0, sizeof(*l));
	while (*text) {
		size_t n = strcspn(text, "\n");

		/* A ledger an older coresink wrote has no end line: all of it is read. */
		if (n == strlen(LEDGER_END) && strncmp(text, LEDGER_END, n) == 0)
			break;
		if (n < sizeof(line)) {
			memcpy(line, text, n);
			line[n] = '\0';
			parse_line(l, line);
		}
		text += n + (text[n] == '\n');
	}
	if (l->version == 0)
		l->version = 1;
}

/*
 * Writes l as text into buf; returns the length (less than size). The end line always fits: records that do not
 * are left out.
 */
size_t ledger_format(const struct ledger *l, char *buf, size_t size)
{
	const size_t end = sizeof(LEDGER_END "\n");
	size_t n = 0, len = size > end ? size - end : 0;

#define PUT(...) do { int k = snprintf(buf + n, len - n, __VA_ARGS__); \
		      if (k > 0 && (size_t)k < len - n) n += (size_t)k; } while (0)
	PUT("ledger %d\n", LEDGER_VERSION);
	PUT("published %" PRIu64 "\n", l->published);
	if (l->kmsg_at)
		PUT("kmsg %" PRIu64 " %" PRIu64 "\n", l->kmsg_seq, l->kmsg_at);
	for (size_t i = 0; i < l->n_inflight; i++) {
		const struct inflight *f = &l->inflight[i];
		char hex[2 * LEDGER_COMM_MAX + 2];

		comm_to_hex(f->crash.comm, hex);
		PUT("inflight %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %" PRIu32 " %" PRIu32 " %" PRIu64
		    " %" PRIu32 " %" PRIu32 " %" PRIu64 " %s %s %c %c %c %" PRIu64 "\n", (int)f->pid, f->start, f->bytes,
		    f->pending, f->held, (int)f->crash.pid, f->crash.uid, f->crash.gid, f->crash.time, f->crash.signal,
		    f->stored, f->core_ino, hex, f->entry[0] ? f->entry : "-", f->crash.by_server ? 's' : 'p',
		    f->sending ? 'y' : 'n', f->lazy ? 'y' : 'n', f->ahead);
	}
	for (size_t i = 0; i < l->n_rate; i++)
		PUT("rate %016" PRIx64 " %" PRIu64 " %" PRIu32 " %" PRIu32 "\n", l->rate[i].key, l->rate[i].start,
		    l->rate[i].count, l->rate[i].suppressed);
	len = size;
	PUT(LEDGER_END "\n");
#undef PUT
	return n;
}

/* The in-flight record of a handler, created when missing (NULL when the table is full). */
struct inflight *ledger_inflight(struct ledger *l, pid_t pid, uint64_t start)
{
	for (size_t i = 0; i < l->n_inflight; i++)
		if (l->inflight[i].pid == pid && l->inflight[i].start == start)
			return &l->inflight[i];
	if (l->n_inflight >= LEDGER_INFLIGHT_MAX)
		return NULL;
	l->inflight[l->n_inflight] = (struct inflight) { .pid = pid, .start = start };
	return &l->inflight[l->n_inflight++];
}

void ledger_drop_inflight(struct ledger *l, size_t i)
{
	if (i < l->n_inflight)
		l->inflight[i] = l->inflight[--l->n_inflight];
}

/*
 * The rate window of key, created when missing; when the table is full, the stalest window makes room, never the
 * global one (key 0) nor keep (a window the caller holds already), so that the global entry, a user's and an
 * executable's can be held at once.
 */
struct rate_entry *ledger_rate(struct ledger *l, uint64_t key, const struct rate_entry *keep)
{
	size_t oldest = SIZE_MAX;

	for (size_t i = 0; i < l->n_rate; i++) {
		if (l->rate[i].key == key)
			return &l->rate[i];
		if (l->rate[i].key != 0 && &l->rate[i] != keep &&
		    (oldest == SIZE_MAX || l->rate[i].start < l->rate[oldest].start))
			oldest = i;
	}
	if (l->n_rate < LEDGER_RATE_MAX)
		oldest = l->n_rate++;
	/* (LEDGER_RATE_MAX holds more than the global window and keep: a full table has a stalest window.) */
	if (oldest == SIZE_MAX)
		oldest = l->n_rate - 1;
	l->rate[oldest] = (struct rate_entry) { .key = key };
	return &l->rate[oldest];
}

/* Reads the ledger from fd (under its lock). 0 or -errno. */
int ledger_load(int fd, struct ledger *l)
{
	static char text[LEDGER_MAX_BYTES];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	n = io_read_full(fd, text, sizeof(text) - 1, NULL);
	if (n < 0)
		return (int)n;
	text[n] = '\0';
	ledger_parse(l, text);
	return 0;
}

/* Rewrites the ledger in fd (under its lock). 0 or -errno. */
int ledger_save(int fd, const struct ledger *l)
{
	static char text[LEDGER_MAX_BYTES];

	return statefile_rewrite(fd, text, ledger_format(l, text, sizeof(text)));
}

/*
 * The ledger of the directory dirfd as it stands, for a reader that changes nothing (coresinkctl): under a shared
 * lock, taken within about a second (a handler holds the lock for milliseconds; one stuck in I/O must not hang an
 * admin's command). 0, -ENOENT (no handler has written one), -EACCES (it is root's), -EWOULDBLOCK, or -errno.
 */
int ledger_read(int dirfd, struct ledger *l)
{
	_cleanup_close_ int fd = openat(dirfd, LEDGER_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int r = -EWOULDBLOCK;

	if (fd < 0)
		return -errno;
	/* Root's file, as the handlers make it: anything else in its place is not the ledger. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0)
		return -EBADMSG;
	for (int i = 0; i < 100 && r == -EWOULDBLOCK; i++) {
		r = flock(fd, LOCK_SH | LOCK_NB) == 0 ? 0 : -errno;
		if (r == -EWOULDBLOCK)
			(void) usleep(10000);
	}
	if (r == 0)
		r = ledger_load(fd, l);
	return r;
}

/*
 * What the files of handler pid without a name (its capture's hidden file, a raw core it still reads) hold on the
 * file system dev, by its /proc/PID/fd: a lazy capture's bytes, which its record does not say. A published core has a
 * name, and is counted as stored. Memfds and the like are on other file systems.
 */
uint64_t ledger_live_bytes(pid_t pid, dev_t dev)
{
	char path[64 + 256];
	struct dirent *e;
	struct stat st;
	uint64_t bytes = 0;
	DIR *d;

	(void) snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		(void) snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, e->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == dev && st.st_nlink == 0)
			bytes += (uint64_t)st.st_blocks * 512;
	}
	if (d)
		(void) closedir(d);
	return bytes;
}
