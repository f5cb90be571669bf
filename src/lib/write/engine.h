/* engine.h: the capture engine, shared by the handler and coresink-bench. */
#ifndef CORESINK_ENGINE_H
#define CORESINK_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/vfs.h>

#include "base.h"
#include "minicore.h"
#include "space.h"
#include "strategy.h"

/*
 * The grid a stored frame's writes end on (grid.c): the page cache then holds the core in large
 * folios, as a raw core written a buffer at a time, and the disk's requests take few segments each.
 */
#define STORE_GRID (256 * 1024)

/*
 * What the handler adds to the free-space check: the bytes of other cores, room made by deleting old ones, and the
 * record of what this capture holds; and the lock that makes concurrent captures' checks and preallocations one
 * after the other (the ledger's, which the handler owns: lock and unlock are its own pair). The engine calls used,
 * make_room and reserve once per chunk, between lock and unlock. Each returns 0 or -errno; after an error the engine
 * stops calling them and MaxUse no longer applies to this capture (free space still does, and the lock is still
 * taken), as when the ledger cannot be opened at all. The error is kept in engine_stats.hook_error.
 */
struct engine_hooks {
	int (*lock)(void *ctx);
	void (*unlock)(void *ctx);
	/* Stored cores + other captures in flight; *pending: what of the latter statfs does not show yet. */
	int (*used)(void *ctx, uint64_t *bytes, uint64_t *pending);
	/* Deletes old cores for need bytes, on a file system of total bytes (what the caller's shares are of). */
	int (*make_room)(void *ctx, uint64_t need, uint64_t total, uint64_t *freed);
	/*
	 * This capture now holds bytes, pending of them not preallocated (statfs will show them as written); late: the
	 * file system shows none of them in statfs yet (btrfs).
	 */
	int (*reserve)(void *ctx, uint64_t bytes, uint64_t pending, bool late);
	void *ctx;
};

struct engine_opts {
	enum strategy strategy;
	enum prealloc prealloc;
	size_t chunk;             /* bytes per chunk, a multiple of PAGE_BYTES */
	size_t buffer;            /* read/write buffer, a multiple of PAGE_BYTES */
	size_t in_pipe;           /* F_SETPIPE_SZ for the input when it is a pipe; 0 leaves it */
	unsigned read_ahead;      /* buffers (of ahead_slot bytes) a thread reads ahead of the writes (prefetch.c),
				     with read/write from a pipe or socket; 0 reads in the copy's own thread */
	size_t ahead_slot;        /* those buffers' size, and the most a stored chunk writes at once; 0: buffer */
	bool ahead_stored;        /* compressing, the thread starts only once chunks go out stored (zstd fell behind,
				     or the data does not shrink) */
	struct size_spec keep_free;
	struct size_spec max_use; /* only with hooks */
	uint64_t max_core;        /* MaxCoreSize; UINT64_MAX for none */
	uint64_t rlimit;          /* RLIMIT_CORE of the crashed process; UINT64_MAX for unlimited */
	bool hygiene;             /* sync_file_range + POSIX_FADV_DONTNEED behind the writes */
	int flush_dir;            /* with hygiene: the output's directory, where flush.c's thread makes an empty
				     unnamed file whose fdatasync empties the disk's cache behind the writeback; -1
				     for none */
	bool sparse;              /* whole zero pages become holes (where the data passes through the buffer) */
	size_t min_hole;          /* the shortest run of zero pages left as a hole (a multiple of PAGE_BYTES) */
	int compress;             /* a zstd level: the file is a zstd frame of the input; 0 for none */
	int compress_workers;     /* zstd's own threads; 0 compresses in the caller's */
	const unsigned char (*age_keys)[AGE_KEY_BYTES];  /* the file is age-encrypted to these X25519 recipients */
	unsigned n_age;           /* how many; 0: not encrypted */
	uint64_t held_base;       /* bytes the capture holds on disk elsewhere (the raw core while compressing) */
	uint64_t probe;           /* compressing: after this many input bytes, give up (-EDOM) when the output is */
	unsigned probe_pct;       /* still more than probe_pct % of them; 0 never gives up */
	uint64_t baseline;        /* the free space an earlier copy of the same capture trusted (its stats'), which
				     this one continues from; 0: what statfs shows when this one begins */
	const struct statfs *last;  /* with baseline: that copy's last statfs, standing in should this one's first fail */
	bool check_space;         /* fstatfs before each chunk */
	void *head;               /* receives the first head_len bytes as they pass (the core's notes); NULL: none */
	size_t head_len;
	int silence_ms;           /* the input (socket mode's connection) may say nothing this long, then it is taken
				     as ended, what came kept (SocketSilenceSec=); 0 for ever */
	const struct engine_hooks *hooks;  /* NULL for none */
	struct minicore *minicore; /* the input is read through it (a minimal core), by read/write; NULL: as it is */
	/*
	 * Called once the head is read, and after each chunk, with the bytes written so far: what the caller does
	 * early in a core's dump while the process still has its memory (the stacks of a core that may be cut short,
	 * flow/stacks.c). Where raw (the file holds the stream as it came: not compressed), it may read the output file
	 * (out) as far as written; it writes nothing to it.
	 */
	void (*progress)(void *ctx, int out, uint64_t written, bool raw, const void *head, size_t head_bytes);
	void *progress_ctx;
};

struct engine_stats {
	uint64_t bytes;           /* bytes in the file at the end */
	uint64_t input;           /* bytes taken from the input (bytes, unless compressed) */
	bool compressed;          /* the file is a zstd frame (compress) */
	bool encrypted;           /* the file is an age file (age_keys) */
	int level;                /* compressed: zstd's level */
	unsigned zstd_chunks, stored_chunks;  /* compressed: chunks through zstd, and stored (raw blocks: pace()) */
	unsigned paced_behind, paced_raw;     /* times zstd fell behind the input, or did not shrink a chunk */
	unsigned flushes;         /* the disk's cache emptied during the copy (flush.c), the final sync aside */
	uint64_t sync_us;         /* the final fdatasync's time: what the disk still held of the file at the end */
	unsigned sampled_raw;                 /* of the latter, probes stored after their first MiB (copy_sample) */
	uint64_t stored_in;       /* the input bytes of the stored chunks */
	bool read_ahead;          /* a thread read the input ahead (o->read_ahead) */
	uint64_t ahead_from;      /* from this many bytes of input on */
	uint64_t input_data;      /* compressing a file: the bytes of data read (input less holes), at the last probe */
	uint64_t expected;        /* the core's size as its headers say (its extent), 0 when not known */
	bool truncated;           /* the input had more than was stored */
	bool cut_short;           /* the input ended before expected: the kernel stopped the dump, or it fell silent */
	bool silent;              /* the input said nothing for silence_ms: its end was taken here (cut_short) */
	enum limit limit;         /* what stopped it, when truncated by a limit */
	bool fell_back;           /* splice was refused and read/write took over */
	int fallback_error;       /* the -errno that caused it */
	bool prealloc_fallback;   /* fallocate unsupported here: ftruncate preallocated instead */
	int space_error;          /* -ENOSPC/-EDQUOT met while writing (another writer took the room) */
	int hook_error;           /* the first -errno of a hook (the ledger, vacuum); MaxUse was off from then on */
	unsigned long in_calls;   /* read(2)/splice(2) calls on the input (naive splice: every call) */
	unsigned long out_calls;  /* write(2) buffers and splice(2) calls into the file */
	unsigned long chunks;
	size_t head_bytes;        /* bytes copied into opts.head */
	uint64_t holes;           /* bytes left as holes (sparse) */
	uint64_t allocated;       /* bytes the file holds on disk at the end (st_blocks), 0 when not a file */
	uint64_t min_avail;       /* lowest free space seen before a chunk */
	bool late_statfs;         /* the file system showed this capture's bytes in statfs late (btrfs) */
	unsigned syncs;           /* syncfs calls to make freed space show (after a vacuum on a late file system) */
	uint64_t sync_ns;         /* and the time they took */
	uint64_t reserve;         /* KeepFree in bytes, as last resolved */
	uint64_t baseline;        /* the free space it trusted, its own bytes counted back in; 0 when none was read */
	struct statfs last;       /* with baseline: the last statfs that worked */
	const char *failed_at;    /* the step an error (the -errno returned) came from, NULL: the copy itself */
	int statfs_error;         /* the first -errno of statfs between chunks, when the last good numbers stood in */
};

void engine_defaults(struct engine_opts *o);
int engine_copy(int in, int out, const struct engine_opts *o, struct engine_stats *st);

#endif
