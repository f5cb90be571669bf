/*
 * bench_producer.c: coresink-bench's data. A producer writes N bytes into the pipe the way the kernel does (4 KiB
 * writes), or in 1 MiB writes, or with vmsplice; the data is random, zeros, or core-like (a page of zeros in
 * three, as real cores have). The data is a 64 MiB pool made once, page i of the stream being page i mod 16384 of
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

#include "bench_producer.h"
#include "io.h"

#define PAGE 4096
#define BLOCK (1024 * 1024)
#define POOL_PAGES 16384   /* 64 MiB, a multiple of BLOCK */

static uint64_t *pool;

int data_kind_from_string(const char *s)
{
	return strcmp(s, "random") == 0 ? DATA_RANDOM : strcmp(s, "zeros") == 0 ? DATA_ZEROS :
	       strcmp(s, "core") == 0 ? DATA_CORE : -EINVAL;
}

int write_mode_from_string(const char *s)
{
	return strcmp(s, "4k") == 0 ? WRITE_4K : strcmp(s, "1m") == 0 ? WRITE_1M :
	       strcmp(s, "vmsplice") == 0 ? WRITE_VMSPLICE : -EINVAL;
}

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
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = io_read_full(fd, buf, sizeof(buf), NULL)) > 0) {
		/* Pages are folded one by one, as checksum_expected() does, so block edges do not matter. */
		for (ssize_t off = 0; off < n; off += PAGE)
			*sum = fold(*sum, buf + off, (size_t)(n - off < PAGE ? n - off : PAGE));
		*size += (uint64_t)n;
	}
	return (int)(n < 0 ? n : 0);
}

/* Writes n bytes from buf, with write(2) or vmsplice(2) (the pool never changes, so its pages may be lent). */
static int put(int wfd, const char *buf, size_t n, enum write_mode mode)
{
	struct iovec iov = { (void *)(uintptr_t)buf, n };

	if (mode != WRITE_VMSPLICE)
		return io_write_full(wfd, buf, n);
	while (iov.iov_len > 0) {
		ssize_t k = vmsplice(wfd, &iov, 1, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		iov.iov_base = (char *)iov.iov_base + k;
		iov.iov_len -= (size_t)k;
	}
	return 0;
}

static int produce(int wfd, uint64_t bytes, enum write_mode mode)
{
	size_t piece = mode == WRITE_4K ? PAGE : BLOCK;

	for (uint64_t off = 0; off < bytes; off += piece) {
		size_t n = bytes - off < piece ? (size_t)(bytes - off) : piece;

		if (put(wfd, page_at(off), n, mode) < 0)
			return -1;
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
		_exit(produce(wfd, bytes, mode) == 0 ? 0 : 1);
	}
	return pid;
}
