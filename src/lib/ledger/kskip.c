/*
 * kskip.c: the crashes the kernel dropped before any handler ran. In pipe mode, past kernel.core_pipe_limit
 * handlers at once, it writes no core and starts no handler: a line in its log is all that is left ("coredump:
 * PID(COMM): over core_pipe_limit, skipping core dump" since Linux 6.12, "Pid PID(COMM) over core_pipe_limit"
 * before). Past ten of them in five seconds the kernel holds its lines back and later says how many it did
 * ("coredump_pipe: N callbacks suppressed"): those crashes can be counted, not named. This reads the kernel log's
 * records after a sequence number and collects both; the parsing of a record is a pure function of its text.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "kskip.h"

#define KMSG "/dev/kmsg"
#define RECORD_MAX 8192   /* a record of /dev/kmsg is at most this long (LOG_LINE_MAX and its prefix) */

/* The rate limit's line for the function that pipes cores (fs/coredump.c, Linux 6.16 on). */
#define HELD_BACK_MARKER "coredump_pipe: %u callbacks suppressed"

static const char *const skip_markers[] = {
	": over core_pipe_limit",   /* coredump: PID(COMM): over core_pipe_limit, skipping core dump */
	") over core_pipe_limit",   /* Pid PID(COMM) over core_pipe_limit */
};

/* The PID(COMM) just before the marker at end, as the kernel printed it. 0, or -EINVAL when there is none. */
static int pid_comm(const char *msg, const char *end, int *pid, char *comm, size_t len)
{
	const char *close = end, *open = NULL, *digits;

	while (close > msg && close[-1] != ')')
		close--;
	if (close == msg)
		return -EINVAL;
	close--;
	/* The comm may hold parentheses: the pid is the digits before the first '(' that digits precede. */
	for (const char *p = msg; p < close; p++)
		if (*p == '(' && p > msg && p[-1] >= '0' && p[-1] <= '9') {
			open = p;
			break;
		}
	if (!open)
		return -EINVAL;
	for (digits = open; digits > msg && digits[-1] >= '0' && digits[-1] <= '9'; digits--)
		;
	/* No pid is longer than 7 digits (pid_max is at most 2^22). */
	if (open - digits > 7)
		return -EINVAL;
	*pid = atoi(digits);
	(void) snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

/*
 * Parses one record of /dev/kmsg ("PRIO,SEQ,USEC,FLAGS;MESSAGE\n" and continuation lines) into r: its sequence
 * number, its time, and what it says of dropped crashes. The kind (enum kskip_kind), or -EINVAL.
 */
int kskip_parse(const char *rec, size_t n, struct kskip_record *r)
{
	char text[RECORD_MAX + 1];
	const char *msg, *marker = NULL;
	unsigned prio;

	*r = (struct kskip_record) { .seq = 0 };
	if (n > RECORD_MAX)
		n = RECORD_MAX;
	memcpy(text, rec, n);
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	msg = strchr(text, ';');
	if (!msg || sscanf(text, "%u,%" SCNu64 ",%" SCNu64 ",", &prio, &r->seq, &r->usec) != 3)
		return -EINVAL;
	msg++;
	if (sscanf(msg, HELD_BACK_MARKER, &r->held_back) == 1)
		return KSKIP_HELD_BACK;
	/* The last one: the comm, before it, may hold the same words. */
	for (size_t i = 0; !marker && i < sizeof(skip_markers) / sizeof(skip_markers[0]); i++)
		for (const char *m = strstr(msg, skip_markers[i]); m; m = strstr(m + 1, skip_markers[i]))
			marker = m;
	if (!marker)
		return KSKIP_OTHER;
	/* The marker starts at ": " or ") ": the PID(COMM) ends just before or at it. */
	if (pid_comm(msg, marker[0] == ')' ? marker + 1 : marker, &r->pid, r->comm, sizeof(r->comm)) < 0)
		return -EINVAL;
	return KSKIP_DROPPED;
}

/* Adds one dropped crash to the list, while there is room; it is counted either way. */
static void note(struct kskip *ks, int pid, const char *comm)
{
	char safe[64];
	size_t used = strlen(ks->list);

	ks->count++;
	(void) escape_text(safe, sizeof(safe), comm, ESCAPE_BACKSLASH);
	if (used + strlen(safe) + 32 < sizeof(ks->list))
		(void) snprintf(ks->list + used, sizeof(ks->list) - used, "%s%d (%s)", used ? ", " : "", pid, safe);
	else
		ks->listed_all = false;
}

/*
 * Reads every record of the kernel log after sequence number after and logged at since_usec (microseconds since
 * boot) or later, collecting the crashes it dropped into ks; ks->last is the last record's sequence number. 0 or
 * -errno (no kernel log to read: not root, no /dev/kmsg).
 */
int kskip_scan(uint64_t after, uint64_t since_usec, struct kskip *ks)
{
	char rec[RECORD_MAX];
	struct kskip_record r;
	bool first = true;
	_cleanup_close_ int fd = -1;

	*ks = (struct kskip) { .last = after, .listed_all = true };
	fd = open(KMSG, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = io_read_record(fd, rec, sizeof(rec));
		int kind;

		/* EPIPE: records were overwritten while this read; the next read goes on from the oldest left. */
		if (n == -EPIPE) {
			ks->lost_records = true;
			continue;
		}
		if (n <= 0)
			break;
		kind = kskip_parse(rec, (size_t)n, &r);
		/* The oldest record left is past the first one wanted: the log wrapped over some. */
		if (first && after > 0 && r.seq > after + 1)
			ks->lost_records = true;
		first = false;
		if (kind == KSKIP_DROPPED && r.seq > after && r.usec >= since_usec)
			note(ks, r.pid, r.comm);
		if (kind == KSKIP_HELD_BACK && r.seq > after && r.usec >= since_usec)
			ks->held_back += r.held_back;
		if (r.seq > ks->last)
			ks->last = r.seq;
	}
	return 0;
}

/* kernel.core_pipe_limit as it is now; -1 when it cannot be read. */
long kskip_pipe_limit(void)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/core_pipe_limit", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? io_read_full(fd, buf, sizeof(buf) - 1, NULL) : -1;

	fd_close(&fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}
