/*
 * replaylog.c: replays a dm-log-writes log (the kernel's drivers/md/dm-log-writes.c, and its admin guide) onto an
 * image file, entry by entry, and at each point a power cut could leave runs a check: after every entry that is a
 * FLUSH or a FUA (what the disk acknowledged as durable), every MARK, and every Nth entry between them. What a power
 * cut at that moment leaves is every write logged so far: the target logs a write once it completed, and a flush
 * after the writes it covered. DISCARDs are replayed as holes (reading zeros, as the loop device gave them).
 * Points before the mark FROM (the file system being made) are not checked.
 *
 * The log: a super block in its first sector (magic, version, entries, sector size), then each entry in a sector
 * of its own (sector, sectors, flags, data length; a mark's text after it), its data after it for a write.
 *
 * usage: replaylog [--every N] [--from MARK] LOG IMAGE COMMAND [ARG...]
 *   COMMAND runs with REPLAY_ENTRY (the entry's index), REPLAY_FLAGS (flush, fua, mark, between) and REPLAY_MARK
 *   set; a point is broken when it exits non-zero. Prints "points N broken M flushes F" at the end; exits 0 once
 *   the log was replayed (whatever the checks said), 1 when it could not be, 2 on usage.
 *   replaylog --list LOG: one line per entry.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOG_FLUSH (1 << 0)
#define LOG_FUA (1 << 1)
#define LOG_DISCARD (1 << 2)
#define LOG_MARK (1 << 3)
#define LOG_MAGIC 0x6a736677736872ULL
#define LOG_VERSION 1ULL

struct super {
	uint64_t magic, version, nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct entry {
	uint64_t sector, nr_sectors, flags, data_len;
};

/* All len bytes at off, read (or written with write): pread(2) and pwrite(2) may do part. 0, or -1. */
static int whole(int fd, void *buf, size_t len, off_t off, bool write)
{
	for (size_t done = 0; done < len;) {
		char *p = (char *)buf + done;
		ssize_t n = write ? pwrite(fd, p, len - done, off + (off_t)done) : pread(fd, p, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* One point's check: COMMAND with the point in its environment. 0 when it passed. */
static int check(char **cmd, uint64_t i, const char *kind, const char *mark)
{
	char idx[32];
	pid_t pid;
	int status;

	(void) snprintf(idx, sizeof(idx), "%" PRIu64, i);
	pid = fork();
	if (pid == 0) {
		setenv("REPLAY_ENTRY", idx, 1);
		setenv("REPLAY_FLAGS", kind, 1);
		setenv("REPLAY_MARK", mark, 1);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* A write's data, copied from the log at off to the image, a MiB at a time. */
static int copy_data(int log, off_t off, int img, off_t to, uint64_t len)
{
	static char buf[1 << 20];

	while (len > 0) {
		size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);

		if (whole(log, buf, n, off, false) < 0 || whole(img, buf, n, to, true) < 0)
			return -1;
		off += (off_t)n, to += (off_t)n, len -= n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long every = 0;
	const char *from = NULL;
	int list = 0, i = 1, log, img = -1;
	uint64_t points = 0, broken = 0, flushes = 0;
	struct super sb;
	off_t off;
	int checking;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--list") == 0)
			list = 1;
		else if (strcmp(argv[i], "--every") == 0 && i + 1 < argc)
			every = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc)
			from = argv[++i];
		else
			return fprintf(stderr, "replaylog: unknown option %s\n", argv[i]), 2;
	}
	if (argc - i < (list ? 1 : 3))
		return fprintf(stderr, "usage: replaylog [--every N] [--from MARK] LOG IMAGE COMMAND [ARG...] | "
			       "replaylog --list LOG\n"), 2;
	log = open(argv[i], O_RDONLY | O_CLOEXEC);
	if (!list)
		img = open(argv[i + 1], O_RDWR | O_CLOEXEC);
	if (log < 0 || (!list && img < 0))
		return perror("replaylog: open"), 1;
	if (whole(log, &sb, sizeof(sb), 0, false) < 0 || le64toh(sb.magic) != LOG_MAGIC ||
	    le64toh(sb.version) != LOG_VERSION || le32toh(sb.sectorsize) < 512 || le32toh(sb.sectorsize) > 65536)
		return fprintf(stderr, "replaylog: %s is not a dm-log-writes log\n", argv[i]), 1;
	sb.sectorsize = le32toh(sb.sectorsize);
	sb.nr_entries = le64toh(sb.nr_entries);
	off = sb.sectorsize;
	checking = from == NULL;
	for (uint64_t n = 0; n < sb.nr_entries; n++) {
		char sector[65536], mark[65536] = "";
		struct entry e;
		const char *kind = NULL;

		if (whole(log, sector, sb.sectorsize, off, false) < 0)
			return fprintf(stderr, "replaylog: entry %" PRIu64 ": cut short\n", n), 1;
		memcpy(&e, sector, sizeof(e));
		e.sector = le64toh(e.sector), e.nr_sectors = le64toh(e.nr_sectors);
		e.flags = le64toh(e.flags), e.data_len = le64toh(e.data_len);
		if ((e.flags & LOG_MARK) && e.data_len < sb.sectorsize - sizeof(e))
			memcpy(mark, sector + sizeof(e), e.data_len), mark[e.data_len] = '\0';
		off += sb.sectorsize;
		if (list) {
			printf("%" PRIu64 " sector %" PRIu64 " sectors %" PRIu64 " flags 0x%" PRIx64 "%s%s\n", n, e.sector,
			       e.nr_sectors, e.flags, mark[0] ? " mark " : "", mark);
		} else if (e.flags & LOG_DISCARD) {
			if (fallocate(img, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(e.sector * sb.sectorsize),
				      (off_t)(e.nr_sectors * sb.sectorsize)) < 0)
				return perror("replaylog: a discard"), 1;
		} else if (e.nr_sectors && copy_data(log, off, img, (off_t)(e.sector * sb.sectorsize),
						     e.nr_sectors * sb.sectorsize) < 0) {
			return fprintf(stderr, "replaylog: entry %" PRIu64 ": its data\n", n), 1;
		}
		if (!(e.flags & LOG_DISCARD) && !(e.flags & LOG_MARK))
			off += (off_t)(e.nr_sectors * sb.sectorsize);
		if (list)
			continue;
		if (!checking && (e.flags & LOG_MARK) && strcmp(mark, from) == 0)
			checking = 1;
		flushes += (e.flags & (LOG_FLUSH | LOG_FUA)) != 0;
		kind = e.flags & LOG_MARK ? "mark" : e.flags & LOG_FLUSH ? "flush" : e.flags & LOG_FUA ? "fua" :
		       every && n % every == 0 ? "between" : NULL;
		if (!checking || !kind)
			continue;
		points++;
		if (check(argv + i + 2, n, kind, mark) != 0) {
			broken++;
			printf("broken at entry %" PRIu64 " (%s%s%s)\n", n, kind, mark[0] ? " " : "", mark);
			fflush(stdout);
		}
	}
	if (!list)
		printf("points %" PRIu64 " broken %" PRIu64 " flushes %" PRIu64 " entries %" PRIu64 "\n", points, broken,
		       flushes, sb.nr_entries);
	return 0;
}
