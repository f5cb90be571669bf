/*
 * engine-internal.h: the state of one engine copy, shared by engine.c (the chunk loop: room, preallocation, hygiene, the
 * head and the compression decision) and move.c (how its bytes move). Not for the rest of the library.
 */
#ifndef CORESINK_ENGINE_INTERNAL_H
#define CORESINK_ENGINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base.h"
#include "compress.h"
#include "engine.h"
#include "flush.h"
#include "grid.h"
#include "prefetch.h"
#include "room.h"

/* The state of one copy. */
struct copy {
	int in, out;
	const struct engine_opts *o;
	struct engine_stats *st;
	enum strategy strategy;
	int stage[2];             /* the private pipe of the staged splice */
	char *buf;                /* the read/write buffer, allocated on first use */
	uint64_t off;             /* bytes written so far: the file position */
	uint64_t pend_off, pend_len;  /* the chunk written last, whose writeback has not started */
	uint64_t prev_off, prev_len;  /* the chunk under writeback */
	bool eof;
	bool head_read;           /* the head is in o->head (st->head_bytes of it); head_done of them are written */
	size_t head_done;
	bool regular;             /* the output is a regular file: there is a size to trim and data to sync */
	bool no_fallocate;        /* the file system said EOPNOTSUPP once; ftruncate from then on */
	bool sparse;              /* zero pages become holes (o->sparse, and the output is a regular file) */
	bool compress;            /* the output is a zstd frame (o->compress) */
	struct compressor z;
	bool encrypt;             /* the output is an age file (o->age_keys): what zstd emits, or the input, encrypted */
	struct age_writer age;
	bool packed;              /* compressed or encrypted: the file grows by what is emitted, not by what is read */
	uint64_t emitted;         /* bytes emitted at the end of a packed file (its size, the grid's carry written) */
	struct grid grid;         /* stored frames' bytes past the grid, not yet written (emitted counts them) */
	uint64_t z_us;            /* of the chunk under way: the time in zstd (with its writes) */
	unsigned ready, starved;  /* and its reads that found the input full, or not (move.c: input_ready) */
	bool store;               /* the chunk under way goes out stored, not through zstd (engine.c, pace()) */
	unsigned stored_run;      /* chunks stored since zstd last fell behind */
	unsigned probe_every;     /* stored chunks before the next goes through zstd again */
	bool sampling;            /* the chunk under way is a probe, judged on its first PACE_SAMPLE (copy_sample) */
	bool sampled_raw;         /* and that sample did not shrink: the rest of it went out stored */
	uint64_t sample_in, sample_out;  /* the sample's input so far; zstd's output when the chunk began */
	uint64_t zero_in;         /* of the chunk's input through zstd so far (of the sample's, sampling): whole zero pages */
	bool in_regular;          /* the input is a file (the raw core being compressed): dropped from the cache as read */
	uint64_t in_off;          /* bytes read from the input */
	uint64_t in_holes, in_scanned;  /* the input's holes, counted as far as in_scanned (input_data) */
	bool reserve_runs;        /* fallocate each run of data before writing it (write_run): plan_reserve() */
	bool encrypted_ahead;     /* encrypted chunks of a known size are reserved a chunk ahead: plan_reserve() */
	struct room room;         /* how much of each chunk may be written (room.c) */
	struct prefetch pf;       /* the input read ahead (o->read_ahead), when ahead */
	bool ahead;
	bool ahead_tried;         /* the thread was started, or could not be (copy_read_ahead) */
	struct flusher flush;     /* the disk's cache emptied behind the writeback (o->flush_dir), when running */
};

bool copy_out_of_space(int r);
int copy_reserve_blocks(struct copy *c, int mode, uint64_t off, uint64_t len, bool locked);
int copy_write(struct copy *c, const char *buf, size_t n);
int copy_write_packed(void *ctx, const char *buf, size_t n);
int copy_writev_packed(void *ctx, struct iovec *iov, int n, size_t total);
int copy_emit(void *ctx, const char *buf, size_t n);
int copy_flush_carry(struct copy *c);
ssize_t copy_read(struct copy *c, void *buf, size_t n);
ssize_t copy_move(struct copy *c, size_t want);
uint64_t copy_input_data(struct copy *c);
int copy_sample(struct copy *c, size_t n);
void copy_read_ahead(struct copy *c);

#endif
