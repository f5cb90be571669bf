/* io.c: the one place for EINTR retries and partial transfers; every raw read, write and splice goes through here. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdint.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "io.h"

/*
 * A call a signal interrupted is made again; one interrupted every time (EINTR_MAX in a row, which no signal a
 * handler gets makes) is given up with EINTR, so that no fault can hold the crashed process for ever.
 */
#define EINTR_MAX 1000
#define RETRY(r, call) \
	do { \
		unsigned tries_ = 0; \
		do (r) = (call); \
		while ((r) < 0 && errno == EINTR && ++tries_ < EINTR_MAX); \
	} while (0)

/*
 * Reads until len bytes or end of file, at the file position (off < 0, read(2)) or at off (pread(2)): the count
 * (short only at EOF) or -errno. calls, if set, counts the calls.
 */
static ssize_t read_full_at(int fd, void *buf, size_t len, off_t off, unsigned long *calls)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t r;

		RETRY(r, off < 0 ? read(fd, p + done, len - done) : pread(fd, p + done, len - done, off + (off_t)done));
		if (calls)
			(*calls)++;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

/* Reads until len bytes or end of file: the count (short only at EOF) or -errno. calls, if set, counts read(2)s. */
ssize_t io_read_full(int fd, void *buf, size_t len, unsigned long *calls)
{
	return read_full_at(fd, buf, len, -1, calls);
}

/* pread(2) until len bytes at off (>= 0) are read: len, fewer at the end of the file, or -errno. */
ssize_t io_pread_full(int fd, void *buf, size_t len, off_t off)
{
	return off < 0 ? -EINVAL : read_full_at(fd, buf, len, off, NULL);
}

/*
 * One read(2), retried on EINTR only: for files read a record at a time (/dev/kmsg), where a second read would
 * take the next record. The count or -errno.
 */
ssize_t io_read_record(int fd, void *buf, size_t len)
{
	ssize_t r;

	RETRY(r, read(fd, buf, len));
	return r < 0 ? -errno : r;
}

/* Writes all len bytes at off (>= 0), or at the file position (off < 0), through partial writes: 0 or -errno. */
static int write_full_at(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t r;

		RETRY(r, off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off));
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		p += r;
		len -= (size_t)r;
		off += off < 0 ? 0 : (off_t)r;
	}
	return 0;
}

/* Writes all len bytes, advancing through partial writes: 0 or -errno. */
int io_write_full(int fd, const void *buf, size_t len)
{
	return write_full_at(fd, buf, len, -1);
}

/*
 * writev(2) until every byte of the n buffers of iov is written, retried on EINTR, a partial write going on from
 * where it stopped (iov is changed). 0 or -errno.
 */
int io_writev_full(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w;

		RETRY(w, writev(fd, iov, n > IOV_MAX ? IOV_MAX : n));
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* pwrite(2) until len bytes at off (>= 0) are written: 0 or -errno. */
int io_pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
	return off < 0 ? -EINVAL : write_full_at(fd, buf, len, off);
}

/* One splice(2) at the file positions, retried on EINTR: bytes moved, 0 at EOF, or -errno. */
ssize_t io_splice(int in, int out, size_t len, unsigned int flags)
{
	ssize_t r;

	RETRY(r, splice(in, NULL, out, NULL, len, flags));
	return r < 0 ? -errno : r;
}

/*
 * Splices exactly len bytes that are already in the pipe in to out. *moved counts what really arrived, so that
 * a caller whose splice is refused halfway knows how much is still in the pipe.
 */
int io_splice_all(int in, int out, size_t len, size_t *moved, unsigned long *calls)
{
	*moved = 0;
	while (*moved < len) {
		ssize_t r = io_splice(in, out, len - *moved, SPLICE_F_MOVE);

		(*calls)++;
		if (r < 0)
			return (int)r;
		if (r == 0)
			return -EPIPE;
		*moved += (size_t)r;
	}
	return 0;
}

/* What is left of timeout_ms since t0 (clock_ms()), in ms: the one deadline of the bounded calls below. */
static int ms_left(uint64_t t0, int timeout_ms)
{
	return timeout_ms - (int)(clock_ms() - t0);
}

/*
 * Reads from fd until end of file, len bytes, or timeout_ms from now: the count read (a short one at end of file or
 * when len is reached), or -errno (-ETIMEDOUT: the time ran out first; what came is in buf, and lost to the caller).
 * For an answer a peer may never finish: a server asked while a crashed process waits.
 */
ssize_t io_read_within(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	const uint64_t t0 = clock_ms();
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		int left;

		if (n == 0)
			break;
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
		left = ms_left(t0, timeout_ms);
		if (left <= 0)
			return -ETIMEDOUT;
		if (errno == EAGAIN && poll(&p, 1, left) < 0 && errno != EINTR)
			return -errno;
	}
	return (ssize_t)got;
}

/* Blocks until fd has data or hangs up, for at most timeout_ms (-1: for ever): 0, -ETIME, or -errno. */
int io_wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	RETRY(r, poll(&p, 1, timeout_ms));
	return r < 0 ? -errno : r == 0 ? -ETIME : 0;
}

/*
 * As io_read_full(), but a read waits at most silence_ms for the input to say anything (poll; -1 for ever): past
 * that, what was read is returned, fewer than len, with *silent set, as at the end of the input.
 */
ssize_t io_read_full_within(int fd, void *buf, size_t len, int silence_ms, unsigned long *calls, bool *silent)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r;
		int w = io_wait_readable(fd, silence_ms);

		if (w == -ETIME) {
			*silent = true;
			break;
		}
		if (w < 0)
			return w;
		RETRY(r, read(fd, (char *)buf + done, len - done));
		if (calls)
			(*calls)++;
		if (r < 0 && errno != EAGAIN)
			return -errno;
		if (r == 0)
			break;
		done += r > 0 ? (size_t)r : 0;
	}
	return (ssize_t)done;
}

/* Tells whether the pipe behind write end wfd has no free slot: 1 full, 0 not, or -errno. */
int io_pipe_is_full(int wfd)
{
	struct pollfd p = { .fd = wfd, .events = POLLOUT };
	int r;

	RETRY(r, poll(&p, 1, 0));
	if (r < 0)
		return -errno;
	return !(p.revents & POLLOUT);
}

/* Grows a pipe to want bytes, halving down to floor when refused: the size granted, or -errno. */
int io_set_pipe_size(int fd, size_t want, size_t floor)
{
	for (size_t sz = want; sz >= floor && sz > 0; sz /= 2) {
		int r = fcntl(fd, F_SETPIPE_SZ, (int)sz);

		if (r >= 0)
			return r;
		if (errno != EPERM && errno != ENOMEM)
			return -errno;
	}
	return -EPERM;
}

/* Copies bytes [off, end) of the file in to out's position, in the kernel (sendfile(2)): 0 or -errno. */
int io_sendfile_range(int out, int in, off_t off, off_t end)
{
	while (off < end) {
		size_t want = end - off < (off_t)(1U << 30) ? (size_t)(end - off) : (1U << 30);
		ssize_t r;

		RETRY(r, sendfile(out, in, &off, want));
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENODATA;   /* the file is shorter than it was said to be */
	}
	return 0;
}

/* Copies len bytes of the file in, from its offset 0, to out's position: 0 or -errno. */
int io_sendfile_all(int out, int in, uint64_t len)
{
	return len > (uint64_t)INT64_MAX ? -EFBIG : io_sendfile_range(out, in, 0, (off_t)len);
}

/* Writes all of iov's bytes from memory into the pipe wfd with vmsplice(2), lending the pages: 0 or -errno. */
int io_vmsplice_full(int wfd, const void *buf, size_t len)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };

	while (iov.iov_len > 0) {
		ssize_t r;

		RETRY(r, vmsplice(wfd, &iov, 1, 0));
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		iov.iov_base = (char *)iov.iov_base + r;
		iov.iov_len -= (size_t)r;
	}
	return 0;
}

/* Waits for the child pid to end: 0 with its *status, or -errno. */
int io_waitpid(pid_t pid, int *status)
{
	pid_t r;

	RETRY(r, waitpid(pid, status, 0));
	return r < 0 ? -errno : 0;
}

/* Waits until the child pid has ended, and leaves it a zombie, to be read in /proc and reaped later. 0 or -errno. */
int io_wait_ended(pid_t pid)
{
	siginfo_t si;
	int r;

	RETRY(r, waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT));
	return r < 0 ? -errno : 0;
}

/*
 * Sends one datagram on the connected socket fd without blocking for longer than timeout_ms: a receiver whose
 * queue is full is waited for, up to then. 0 or -errno (-ETIMEDOUT).
 */
int io_send_within(int fd, const struct msghdr *msg, int timeout_ms)
{
	const uint64_t t0 = clock_ms();
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	for (;;) {
		int e, left;

		if (sendmsg(fd, msg, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		e = errno;
		if (e != EINTR && e != EAGAIN)
			return -e;
		left = ms_left(t0, timeout_ms);
		if (left <= 0)
			return -ETIMEDOUT;
		if (e == EAGAIN && poll(&p, 1, left) < 0 && errno != EINTR)
			return -errno;
	}
}

/* fdatasync(2), made again when a signal interrupted it: 0 or -errno. */
int io_fdatasync(int fd)
{
	int r;

	RETRY(r, fdatasync(fd));
	return r < 0 ? -errno : 0;
}

/*
 * Another program's file root+path (root "" on the host, a test's directory in the tests), opened to read: not
 * through a link, never waiting on a FIFO. Its fd, or -errno.
 */
int io_open_host(const char *root, const char *path)
{
	char full[PATH_MAX];
	int fd;

	if ((size_t)snprintf(full, sizeof(full), "%s%s", root, path) >= sizeof(full))
		return -ENAMETOOLONG;
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/*
 * Whether another program's file path is a regular file of owner's (IO_ANY_OWNER: anyone's), looked at without
 * opening it and not followed where it is a link (a FIFO costs nothing): 0, -ENOENT, or -EPERM.
 */
int io_file_of(const char *path, uid_t owner)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? -ENOENT : -EPERM;
	return S_ISREG(st.st_mode) && (owner == IO_ANY_OWNER || st.st_uid == owner) ? 0 : -EPERM;
}

/* The text of the small file path, at most size - 1 bytes, NUL-terminated into buf. 0 or -errno. */
int io_read_text(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	return fd < 0 ? -errno : io_read_text_fd(fd, buf, size);
}

/* As io_read_text(), from an open fd (standard input, say) to its end. 0 or -errno. */
int io_read_text_fd(int fd, char *buf, size_t size)
{
	ssize_t n = io_read_full(fd, buf, size - 1, NULL);

	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

/* Writes len bytes of text to the existing file path (a sysctl, a cgroup's file). 0 or -errno. */
int io_write_text(const char *path, const char *text, size_t len)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	return io_write_full(fd, text, len);
}

/* A unix socket of type for path, its address into *sa (to bind or connect). The fd, or -errno. */
int io_unix_socket(const char *path, int type, struct sockaddr_un *sa)
{
	int fd;

	*sa = (struct sockaddr_un) { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

/* A call run by io_run_within(): whoever of the caller and the thread is last frees it. */
struct within {
	int (*fn)(void *);
	void *arg;
	int r;
	bool done, abandoned;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void within_free(struct within *w)
{
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

static void *within_main(void *p)
{
	struct within *w = p;
	int r = w->fn(w->arg);
	bool abandoned;

	pthread_mutex_lock(&w->lock);
	w->r = r;
	w->done = true;
	abandoned = w->abandoned;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (abandoned)
		within_free(w);
	return NULL;
}

/*
 * Runs fn(arg) in a thread of its own and waits for it at most timeout_ms: for a read no signal can cut short
 * (the crashed process's memory, mapped from a file system that answers when it likes: FUSE). fn's result; or
 * -ETIME, and the thread is left to finish, or to die with the process: whatever it touches must then outlive
 * this call (the caller leaks it). -errno where no thread could be made (fn not run).
 */
int io_run_within(int (*fn)(void *), void *arg, int timeout_ms)
{
	struct within *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	struct timespec end;
	pthread_t t;
	int r;

	if (!w)
		return -ENOMEM;
	*w = (struct within) { .fn = fn, .arg = arg };
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	r = -pthread_create(&t, &ta, within_main, w);
	pthread_attr_destroy(&ta);
	if (r < 0) {
		within_free(w);
		return r;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	while (!w->done && pthread_cond_timedwait(&w->cond, &w->lock, &end) != ETIMEDOUT)
		;
	if (!w->done) {
		w->abandoned = true;
		pthread_mutex_unlock(&w->lock);
		return -ETIME;
	}
	r = w->r;
	pthread_mutex_unlock(&w->lock);
	within_free(w);
	return r;
}
