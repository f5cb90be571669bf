/*
 * journal.c: sending one structured entry to journald, or to the kernel log when journald is not there.
 * sd_journal_sendv() reports success when no journald listens (it drops the entry on ENOENT), so the socket is
 * looked at first; a socket nobody answers on makes sendv fail, and that falls back too.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "escape.h"
#include "io.h"
#include "journal.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define KMSG "/dev/kmsg"

/* Where entries go; only journal_test_redirect() changes them. */
static const char *socket_path = JOURNAL_SOCKET;
static const char *kmsg_path = KMSG;

/*
 * The one test seam: a unit test points the journal socket and the kernel log at files of its own, to read back
 * the exact bytes of the fallback. NULL restores the real path.
 */
void journal_test_redirect(const char *socket, const char *kmsg)
{
	socket_path = socket ? socket : JOURNAL_SOCKET;
	kmsg_path = kmsg ? kmsg : KMSG;
}

void fields_init(struct fields *f, int priority)
{
	memset(f, 0, sizeof(*f));
	f->priority = priority;
	fields_add(f, "PRIORITY=%d", priority);
	fields_add(f, "SYSLOG_IDENTIFIER=coresink");
}

/* Adds one field. A field that cannot be formatted is dropped; the entry still goes out. */
void fields_add(struct fields *f, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (f->n >= FIELDS_MAX)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (strncmp(s, "MESSAGE=", 8) == 0)
		f->message = s + 8;
	f->iov[f->n++] = (struct iovec) { .iov_base = s, .iov_len = (size_t)n };
}

void fields_free(struct fields *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->iov[i].iov_base);
	f->n = 0;
	f->message = NULL;
}

/* Whether journald took the entry: its socket is there (sendv alone says yes when it is not), and sendv worked. */
static bool journald_took(struct fields *f)
{
	struct stat st;

	return stat(socket_path, &st) == 0 && S_ISSOCK(st.st_mode) && sd_journal_sendv(f->iov, (int)f->n) >= 0;
}

/*
 * Writes MESSAGE up to its first blank line (the sentence; a stack trace after it is for the journal) as one kernel
 * log record, escaped (escape.c) so that it cannot forge a second record, cut to what one record holds.
 */
static int kmsg_send(const struct fields *f)
{
	char line[1024], first[sizeof(line)];
	const char *m = f->message ? f->message : "";
	const char *blank = strstr(m, "\n\n");
	size_t n, len = blank ? (size_t)(blank - m) : strlen(m);
	int fd, r;

	(void) snprintf(first, sizeof(first), "%.*s", (int)(len < sizeof(first) ? len : sizeof(first) - 1), m);
	n = (size_t)snprintf(line, sizeof(line), "<%d>coresink[%d]: ", f->priority, (int)getpid());
	n += escape_text(line + n, sizeof(line) - n - 1, first, 0);
	if (n > sizeof(line) - 2)
		n = strlen(line);
	line[n++] = '\n';
	fd = open(kmsg_path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = io_write_full(fd, line, n);
	(void) close(fd);
	return r;
}

/* Sends the entry: 0 when journald took it, 1 when the kernel log did, or -errno when neither could. */
int journal_send(struct fields *f)
{
	int r;

	if (journald_took(f))
		return 0;
	r = kmsg_send(f);
	return r < 0 ? r : 1;
}

/*
 * Sends the entry with uid's credentials, so that journald files it where that user can read it, as
 * systemd-coredump does; a child drops to uid and gid and sends. When journald does not take it from the child,
 * the root parent falls back to the kernel log. uid 0 or unknown: a plain journal_send().
 */
int journal_send_as(struct fields *f, uid_t uid, gid_t gid)
{
	pid_t pid;
	int status;

	if (uid == 0 || uid == (uid_t)-1 || gid == (gid_t)-1)
		return journal_send(f);
	pid = fork();
	if (pid < 0)
		return journal_send(f);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
			_exit(1);
		_exit(journald_took(f) ? 0 : 1);
	}
	if (io_waitpid(pid, &status) < 0)
		return journal_send(f);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	status = kmsg_send(f);
	return status < 0 ? status : 1;
}
