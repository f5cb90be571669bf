/* ledger.h: the state shared by concurrent handlers, kept in a root-only file in the core directory. */
#ifndef CORESINK_LEDGER_H
#define CORESINK_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ratelimit.h"

#define LEDGER_FILE ".coresink.state"
#define LEDGER_INFLIGHT_MAX 64
#define LEDGER_RATE_MAX 256
#define LEDGER_COMM_MAX 15   /* the kernel's TASK_COMM_LEN less its NUL */
#define LEDGER_ENTRY_LEN 32  /* an entry's id: 128 bits in hex */

/* The crash a pipe-mode handler has in hand: a later handler names it, should this one die before its entry. */
struct ledger_crash {
	pid_t pid;        /* 0: none recorded */
	uint32_t uid, gid, signal;
	uint64_t time;
	char comm[LEDGER_COMM_MAX + 1];   /* its %e, as far as it goes, NUL-terminated */
	/*
	 * Socket mode's: the server names the crash should this handler die, never another handler (the record is
	 * there for whoever asks what is in progress, coresinkctl).
	 */
	bool by_server;
};

struct inflight {
	pid_t pid;
	uint64_t start;   /* the handler's start time (/proc/PID/stat), against pid reuse */
	uint64_t bytes;   /* what its capture holds */
	uint64_t pending; /* of it, what no preallocation shows in statfs yet (a sparse capture's chunk) */
	uint64_t held;    /* the inode of a stored core its handler still reads (the analysis), kept from vacuum; 0 */
	struct ledger_crash crash;
	uint32_t stored;  /* 1 once its core was published */
	uint64_t core_ino;   /* the published core's inode, for whoever reads the ledger (a dead handler's core
				is found by its name: crash_core_of()) */
	/*
	 * Its crash's entry id (CORESINK_ENTRY=), from the start: only root reads the ledger, and the core's record of
	 * the id is a digest (xattr.c), so whoever names the crash for a dead handler has the id from here. "": none.
	 */
	char entry[LEDGER_ENTRY_LEN + 1];
	bool sending;     /* its entry may be out: whoever names the crash waits a moment for it first */
	/*
	 * Its handler was alone at its last chunk and writes no more progress while it stays so: bytes and pending
	 * may be stale. Whoever counts it measures what its handler's files without a name hold on the directory's file
	 * system (/proc/PID/fd), and adds ahead, what it may write before it next reads the ledger (a chunk).
	 */
	bool lazy;
	uint64_t ahead;
};

struct ledger {
	unsigned version;     /* the format the file was last written in (1: an older handler's, no version line) */
	uint64_t published;   /* bytes of stored cores in the directory */
	uint64_t kmsg_seq;    /* the kernel log's last record read for crashes it dropped (kskip.c); 0: none yet */
	uint64_t kmsg_at;     /* when it was read, in ms since the epoch */
	size_t n_inflight, n_rate;
	struct inflight inflight[LEDGER_INFLIGHT_MAX];
	struct rate_entry rate[LEDGER_RATE_MAX];
};

void ledger_parse(struct ledger *l, const char *text);
size_t ledger_format(const struct ledger *l, char *buf, size_t len);
struct inflight *ledger_inflight(struct ledger *l, pid_t pid, uint64_t start);
void ledger_drop_inflight(struct ledger *l, size_t i);
struct rate_entry *ledger_rate(struct ledger *l, uint64_t key, const struct rate_entry *keep);
int ledger_load(int fd, struct ledger *l);
int ledger_save(int fd, const struct ledger *l);
int ledger_read(int dirfd, struct ledger *l);
uint64_t ledger_live_bytes(pid_t pid, dev_t dev);

#endif
