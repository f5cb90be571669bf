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
#include <endian.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-journal.h>
#include <time.h>

#include "base.h"
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
	_cleanup_close_ int fd = -1;

	(void) snprintf(first, sizeof(first), "%.*s", (int)(len < sizeof(first) ? len : sizeof(first) - 1), m);
	n = (size_t)snprintf(line, sizeof(line), "<%d>coresink[%d]: ", f->priority, (int)getpid());
	n += escape_text(line + n, sizeof(line) - n - 1, first, 0);
	if (n > sizeof(line) - 2)
		n = strlen(line);
	line[n++] = '\n';
	fd = open(kmsg_path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return io_write_full(fd, line, n);
}

/* How long an entry may wait for journald's full queue before it goes to the kernel log instead. */
#define SEND_TIMEOUT_MS 2000
/* The datagram's bound; a larger entry goes in a sealed memfd, as sd_journal_sendv() does. */
#define DATAGRAM_MAX (4 << 20)
/* How often journal_find() looks. */
#define JOURNAL_POLL_MS 100

/* The entry in the native protocol's binary-safe form, every field as NAME '\n' le64(length) value '\n'. */
static char *serialize(const struct fields *f, size_t *len)
{
	size_t n = 0;
	char *buf, *p;

	for (size_t i = 0; i < f->n; i++)
		n += f->iov[i].iov_len + 1 + 8 + 1;
	p = buf = malloc(n ? n : 1);
	for (size_t i = 0; buf && i < f->n; i++) {
		const char *field = f->iov[i].iov_base, *eq = memchr(field, '=', f->iov[i].iov_len);
		size_t name = eq ? (size_t)(eq - field) : f->iov[i].iov_len;
		size_t value = f->iov[i].iov_len - name - (eq != NULL);
		uint64_t le = htole64(value);

		memcpy(p, field, name);
		p += name;
		*p++ = '\n';
		memcpy(p, &le, sizeof(le));
		p += sizeof(le);
		if (value)
			memcpy(p, eq + 1, value);
		p += value;
		*p++ = '\n';
	}
	*len = buf ? (size_t)(p - buf) : 0;
	return buf;
}

/* A sealed memfd holding len bytes of buf, as journald wants a large entry from anyone but root. fd or -errno. */
static int sealed_copy(const char *buf, size_t len)
{
	_cleanup_close_ int fd = memfd_create("coresink-entry", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int r;

	if (fd < 0)
		return -errno;
	r = io_write_full(fd, buf, len);
	if (r == 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		r = -errno;
	return r < 0 ? r : TAKE_FD(fd);
}

/* Sends buf (or, with memfd >= 0, that fd) to journald on sock with the credentials uc. 0 or -errno. */
static int send_with_creds(int sock, const char *buf, size_t len, int memfd, const struct ucred *uc)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { (void *)(uintptr_t)buf, len };
	struct msghdr m = { .msg_control = control.buf, .msg_controllen = CMSG_SPACE(sizeof(*uc)) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	memset(&control, 0, sizeof(control));
	*c = (struct cmsghdr) { .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_CREDENTIALS,
				.cmsg_len = CMSG_LEN(sizeof(*uc)) };
	memcpy(CMSG_DATA(c), uc, sizeof(*uc));
	if (memfd < 0) {
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
	} else {
		m.msg_controllen += CMSG_SPACE(sizeof(int));
		c = CMSG_NXTHDR(&m, c);
		*c = (struct cmsghdr) { .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_RIGHTS,
					.cmsg_len = CMSG_LEN(sizeof(int)) };
		memcpy(CMSG_DATA(c), &memfd, sizeof(int));
	}
	return io_send_within(sock, &m, SEND_TIMEOUT_MS);
}

/* A datagram socket connected to journald's, its send buffer raised as far as allowed. The fd or -errno. */
static int journal_socket(void)
{
	struct sockaddr_un sa;
	_cleanup_close_ int sock = io_unix_socket(socket_path, SOCK_DGRAM, &sa);
	int sndbuf = DATAGRAM_MAX;

	if (sock < 0)
		return sock;
	/* Root may pass the bound (SO_SNDBUFFORCE); otherwise wmem_max caps it, and a large entry takes the memfd. */
	if (setsockopt(sock, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0)
		(void) setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return TAKE_FD(sock);
}

/*
 * Sends the entry to journald with the credentials as (see journal_send_as), in the native protocol: as one
 * datagram, or past its bound in a sealed memfd. 0 or -errno.
 */
static int send_as(const struct fields *f, const struct ucred *as)
{
	_cleanup_close_ int sock = journal_socket(), memfd = -1;
	size_t len;
	char *buf = serialize(f, &len);
	int r;

	if (!buf)
		r = -ENOMEM;
	else if (sock < 0)
		r = sock;
	else
		r = len <= DATAGRAM_MAX ? send_with_creds(sock, buf, len, -1, as) : -EMSGSIZE;
	if (r == -EMSGSIZE || r == -ENOBUFS) {
		memfd = sealed_copy(buf, len);
		r = memfd < 0 ? memfd : send_with_creds(sock, NULL, 0, memfd, as);
	}
	free(buf);
	return r;
}

/*
 * A sealed memfd holding the entry: its fields, then name with the len bytes of the file fd as its value, copied in
 * the kernel (the core never passes through the handler's memory). The fd or -errno.
 */
static int entry_with_file(const struct fields *f, const char *name, int fd, uint64_t len)
{
	size_t n;
	char *buf = serialize(f, &n);
	_cleanup_close_ int memfd = memfd_create("coresink-entry", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	uint64_t le = htole64(len);
	int r;

	if (!buf || memfd < 0)
		r = !buf ? -ENOMEM : -errno;
	else
		r = io_write_full(memfd, buf, n);
	if (r == 0)
		r = io_write_full(memfd, name, strlen(name));
	if (r == 0)
		r = io_write_full(memfd, "\n", 1);
	if (r == 0)
		r = io_write_full(memfd, &le, sizeof(le));
	if (r == 0)
		r = io_sendfile_all(memfd, fd, len);
	if (r == 0)
		r = io_write_full(memfd, "\n", 1);
	if (r == 0 && fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		r = -errno;
	free(buf);
	return r < 0 ? r : TAKE_FD(memfd);
}

/*
 * Sends the entry with one more field, name, whose value is the len bytes of the file fd (a core, for
 * Storage=journal, as systemd-coredump's COREDUMP=), with uid's and gid's credentials as journal_send_as() (root's
 * for uid 0 or unknown). 0 when journald took it, or -errno: a core has no kernel-log form, so the caller keeps it
 * elsewhere and sends the entry without it.
 */
int journal_send_file(struct fields *f, const char *name, int fd, uint64_t len, uid_t uid, gid_t gid)
{
	const bool user = uid != 0 && uid != (uid_t)-1 && gid != (gid_t)-1;
	const struct ucred as = { .pid = getpid(), .uid = user ? uid : 0, .gid = user ? gid : 0 };
	_cleanup_close_ int sock = -1, memfd = -1;

	if (!journal_listening())
		return -ENOTCONN;
	memfd = entry_with_file(f, name, fd, len);
	if (memfd < 0)
		return memfd;
	sock = journal_socket();
	return sock < 0 ? sock : send_with_creds(sock, NULL, 0, memfd, &as);
}

/*
 * Waits up to timeout_ms for an entry with the field match (NAME=value), and also and_match unless NULL, to be in
 * the local journal: journald takes an entry before it writes it, and drops one its journal files cannot hold (a
 * core larger than a file may grow, "Argument list too long") without telling the sender. 0 found, -ETIMEDOUT, or
 * -errno.
 */
int journal_find(const char *match, const char *and_match, unsigned timeout_ms)
{
	const struct timespec tick = { 0, JOURNAL_POLL_MS * 1000000L };
	int r = 0;

	/*
	 * A fresh look each time: journald rotates its files as large entries fill them, and an entry written to a
	 * file that replaced one already open was seen late, or not at all, in 1 of 3 tries.
	 */
	for (unsigned waited = 0; waited <= timeout_ms; waited += JOURNAL_POLL_MS) {
		sd_journal *j = NULL;

		r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
		if (r >= 0)
			r = sd_journal_add_match(j, match, 0);
		if (r >= 0 && and_match)
			r = sd_journal_add_match(j, and_match, 0);
		if (r >= 0)
			r = sd_journal_next(j);
		if (j)
			sd_journal_close(j);
		if (r != 0)
			break;
		nanosleep(&tick, NULL);
	}
	return r > 0 ? 0 : r < 0 ? r : -ETIMEDOUT;
}

/* Whether the line of text at s (up to its end or a newline) is the entry the needle names, not its early line. */
static bool entry_line(const char *s, const char *needle)
{
	static const char early[] = "processing...";
	size_t n = strcspn(s, "\n");
	const char *at = strstr(s, needle);

	return at && at < s + n && !(n >= strlen(early) && memcmp(s + n - strlen(early), early, strlen(early)) == 0);
}

/*
 * Whether the kernel log holds the entry that the handler (pid handler) sent there for crash pid, where journald
 * did not take it: its line "coresink[HANDLER]: Process PID (...", not the early "processing..." one. 1, 0, or
 * -errno (no kernel log to read).
 */
int kmsg_find_entry(pid_t handler, pid_t pid)
{
	char rec[8192], needle[64];
	_cleanup_close_ int fd = -1;
	int found = 0;

	(void) snprintf(needle, sizeof(needle), "coresink[%d]: Process %d (", (int)handler, (int)pid);
	fd = open(kmsg_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	while (!found) {
		ssize_t n = io_read_record(fd, rec, sizeof(rec) - 1);

		/* EPIPE: records overwritten as this read; the next read goes on with the oldest left. */
		if (n == -EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		/* One record a read from /dev/kmsg, each line of it looked at (a test's file gives them all at once). */
		for (const char *p = rec; *p && !found; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != '\0'))
			found = entry_line(p, needle);
	}
	return found;
}

/* Whether journald's socket is there (not whether it will answer). */
bool journal_listening(void)
{
	struct stat st;

	return stat(socket_path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/*
 * Whether journald took the entry: its socket is there (sd_journal_sendv() says yes when it is not), and the send
 * worked; with as, under those credentials.
 */
static bool journald_took(struct fields *f, const struct ucred *as)
{
	if (!journal_listening())
		return false;
	return as ? send_as(f, as) == 0 : sd_journal_sendv(f->iov, (int)f->n) >= 0;
}

/* Sends the entry to journald, else to the kernel log: 0 journald, 1 the kernel log, or -errno when neither. */
static int deliver(struct fields *f, const struct ucred *as)
{
	int r;

	if (journald_took(f, as))
		return 0;
	r = kmsg_send(f);
	return r < 0 ? r : 1;
}

/* Sends the entry with the handler's own credentials: 0 journald, 1 the kernel log, or -errno (deliver()). */
int journal_send(struct fields *f)
{
	return deliver(f, NULL);
}

/*
 * Sends the entry with uid's and gid's credentials, so that journald files it where that user can read it (its
 * journal, _UID= the user), as systemd-coredump's entries are. No process of the user's sends it: one the user could
 * stop with a signal and hold the handler as long as they liked. Root names the user's ids in SCM_CREDENTIALS
 * itself (the kernel lets CAP_SETUID and CAP_SETGID do that, with its own pid), in the native protocol, which
 * sd_journal_sendv() cannot do. uid 0 or unknown: a plain journal_send().
 */
int journal_send_as(struct fields *f, uid_t uid, gid_t gid)
{
	const struct ucred as = { .pid = getpid(), .uid = uid, .gid = gid };

	if (uid == 0 || uid == (uid_t)-1 || gid == (gid_t)-1)
		return journal_send(f);
	return deliver(f, &as);
}

/*
 * Whether stderr is already the journal (a service's, as systemd documents $JOURNAL_STREAM: "DEVICE:INODE" of it):
 * a line written there would be a second copy of the entry. 1 or 0.
 */
int journal_is_stderr(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}
