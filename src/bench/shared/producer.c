/*
 * producer.c: coresink-bench's data, which the engine's unit tests feed it too. A producer writes N bytes into the
 * pipe the way the kernel does (4 KiB writes), or in 1 MiB writes, or with vmsplice; the data is random, zeros, or
 * core-like (a page of zeros in three, as real cores have). The data is a 64 MiB pool made once, page i of the stream being page i mod 16384 of
 * the pool: the producer costs no CPU to speak of, and the expected checksum needs no copy of the output.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base.h"
#include "producer.h"

#define PAGE PAGE_BYTES
#define BLOCK (1024 * 1024)
#define POOL_PAGES 16384   /* 64 MiB, a multiple of BLOCK */

static uint64_t *pool;

static const char *const data_kind_names[] = {
	[DATA_RANDOM] = "random",
	[DATA_ZEROS] = "zeros",
	[DATA_CORE] = "core",
};

static const char *const write_mode_names[] = {
	[WRITE_4K] = "4k",
	[WRITE_1M] = "1m",
	[WRITE_VMSPLICE] = "vmsplice",
};

DEFINE_STRING_TABLE_LOOKUP(data_kind, enum data_kind, data_kind_names, _DATA_KIND_MAX)
DEFINE_STRING_TABLE_LOOKUP(write_mode, enum write_mode, write_mode_names, _WRITE_MODE_MAX)

/* Fills one page: its index decides its bytes (splitmix64), or zeros. */
static void fill_page(uint64_t *p, uint64_t index, enum data_kind kind)
{
	if (kind == DATA_ZEROS || (kind == DATA_CORE && index % 3 == 2)) {
		memset(p, 0, PAGE);
		return;
	}
	for (uint64_t i = 0; i < PAGE / 8; i++) {
		uint64_t z = (index * (PAGE / 8) + i + 1) * 0x9e3779b97f4a7c15ULL;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		p[i] = z ^ (z >> 27);
	}
}

/* FNV-1a over 8-byte words, then the tail bytes. */
static uint64_t fold(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	for (; len > 0; p++, len--)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h;
}

#define FNV_START 0xcbf29ce484222325ULL

/* Makes the pool of kind (once per process; a forked producer inherits it). 0 or -ENOMEM. */
int data_prepare(enum data_kind kind)
{
	if (!pool)
		pool = mmap(NULL, (size_t)POOL_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pool == MAP_FAILED) {
		pool = NULL;
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < POOL_PAGES; i++)
		fill_page(pool + i * (PAGE / 8), i, kind);
	return 0;
}

static const char *page_at(uint64_t off)
{
	return (const char *)pool + (off / PAGE % POOL_PAGES) * PAGE;
}

uint64_t checksum_expected(uint64_t bytes)
{
	uint64_t h = FNV_START;

	for (uint64_t off = 0; off < bytes; off += PAGE)
		h = fold(h, page_at(off), bytes - off < PAGE ? bytes - off : PAGE);
	return h;
}

/* Reads the file back (from offset 0) and checksums it. 0 or -errno. */
int checksum_file(int fd, uint64_t *sum, uint64_t *size)
{
	static char buf[BLOCK];
	ssize_t n;

	*sum = FNV_START;
	*size = 0;
	/* A file from its start; a pipe (a decompressor's output) as it comes. */
	if (lseek(fd, 0, SEEK_SET) < 0 && errno != ESPIPE)
		return -errno;
	while ((n = io_read_full(fd, buf, sizeof(buf), NULL)) > 0) {
		/* Pages are folded one by one, as checksum_expected() does, so block edges do not matter. */
		for (ssize_t off = 0; off < n; off += PAGE)
			*sum = fold(*sum, buf + off, (size_t)(n - off < PAGE ? n - off : PAGE));
		*size += (uint64_t)n;
	}
	return (int)(n < 0 ? n : 0);
}

/* Counts the leading bytes of fd (read from offset 0) that match the stream, to the byte. -errno on error. */
int64_t producer_prefix(int fd)
{
	static char buf[BLOCK];
	uint64_t off = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = io_read_full(fd, buf, sizeof(buf), NULL)) > 0) {
		for (ssize_t i = 0; i < n;) {
			size_t k = (size_t)(n - i) < PAGE ? (size_t)(n - i) : PAGE;

			for (size_t j = 0; j < k; j++)
				if (buf[i + (ssize_t)j] != page_at(off)[j])
					return (int64_t)(off + j);
			off += k;
			i += (ssize_t)k;
		}
	}
	return n < 0 ? n : (int64_t)off;
}

/* Writes n bytes from buf, with write(2) or vmsplice(2) (the pool never changes, so its pages may be lent). */
static int put(int wfd, const char *buf, size_t n, enum write_mode mode)
{
	return mode == WRITE_VMSPLICE ? io_vmsplice_full(wfd, buf, n) : io_write_full(wfd, buf, n);
}

/*
 * Writes bytes [from, to) of the stream into wfd, in the pieces mode says, each ending at a multiple of its size: a
 * piece is then contiguous in the pool (BLOCK divides the pool). 0 or -errno.
 */
int producer_write(int wfd, uint64_t from, uint64_t to, enum write_mode mode)
{
	uint64_t piece = mode == WRITE_4K ? PAGE : BLOCK;

	for (uint64_t off = from; off < to;) {
		uint64_t room = piece - off % piece;
		size_t n = (size_t)(to - off < room ? to - off : room);
		int r = put(wfd, page_at(off) + off % PAGE, n, mode);

		if (r < 0)
			return r;
		off += n;
	}
	return 0;
}

/*
 * Forks a producer writing into the pipe p. It must not keep the read end: a consumer that stops early (a full disk)
 * has to make it fail with EPIPE. The caller closes its write end. Returns the pid or -errno.
 */
pid_t producer_start(const int p[2], uint64_t bytes, enum write_mode mode)
{
	pid_t pid = fork();
	int wfd = p[1];

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		(void) close(p[0]);
		signal(SIGPIPE, SIG_DFL);
		_exit(producer_write(wfd, 0, bytes, mode) == 0 ? 0 : 1);
	}
	return pid;
}
