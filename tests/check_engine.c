/*
 * check_engine.c: the capture engine on real pipes and real files: every strategy byte-identical, staged splice in
 * real chunks, a splice the kernel really refuses (O_APPEND) switching to read/write mid-stream, the reserve.
 */
#include <elf.h>
#include <sodium.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <zstd.h>

#include "producer.h"
#include "unit.h"
#include "write.h"

#define MIB (1024 * 1024)

static char dir[256];

static void setup(void)
{
	unit_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(data_prepare(DATA_RANDOM), 0);
}

static void teardown(void)
{
	unit_rmtree(dir);
}

static int out_file(const char *name, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0600);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Runs the engine on size bytes produced in 4 KiB writes, as the kernel writes; returns the stats. */
static struct engine_stats run(const struct engine_opts *o, size_t size, int out)
{
	struct engine_stats st;
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = producer_start(p, size, WRITE_4K);
	ck_assert_int_gt(pid, 0);
	close(p[1]);
	ck_assert_int_eq(engine_copy(p[0], out, o, &st), 0);
	close(p[0]);
	/* A truncated capture stops reading, and the writer dies of SIGPIPE, as the kernel's dump stops. */
	if (st.truncated)
		ck_assert_int_eq(WTERMSIG(unit_reap(pid)), SIGPIPE);
	else
		ck_assert_int_eq(unit_reap(pid), 0);
	return st;
}

static void assert_complete(int out, const struct engine_stats *st, size_t size)
{
	struct stat s;

	ck_assert_uint_eq(st->bytes, size);
	ck_assert(!st->truncated);
	ck_assert_int_eq(fstat(out, &s), 0);
	ck_assert_int_eq(s.st_size, (off_t)size);
	ck_assert_uint_eq((uint64_t)producer_prefix(out), size);
}

/* _i 3: read/write with a thread reading ahead (prefetch.c), the head taken through it as the handler does. */
START_TEST(test_each_strategy_identical)
{
	static const enum strategy strategies[] = { STRATEGY_SPLICE, STRATEGY_READWRITE, STRATEGY_NAIVE_SPLICE,
						    STRATEGY_READWRITE };
	static unsigned char head[MIB - 3];
	struct engine_opts o;
	struct engine_stats st;
	/* Not a multiple of a page, a chunk or the buffer, so every tail path runs. */
	size_t size = 40 * MIB + 12345;
	int out = out_file("core", 0);

	engine_defaults(&o);
	o.strategy = strategies[_i];
	if (_i == 3) {
		o.read_ahead = 4;
		o.head = head;
		o.head_len = sizeof(head);
	}
	st = run(&o, size, out);
	assert_complete(out, &st, size);
	ck_assert(!st.fell_back);
	if (_i == 3)
		ck_assert_uint_eq(st.head_bytes, sizeof(head));
	close(out);
}
END_TEST

START_TEST(test_staged_splice_moves_whole_chunks)
{
	struct engine_opts o;
	struct engine_stats st;
	size_t size = 64 * MIB;
	int out = out_file("core", 0);

	engine_defaults(&o);
	o.strategy = STRATEGY_SPLICE;
	o.chunk = 4 * MIB;
	st = run(&o, size, out);
	assert_complete(out, &st, size);
	/*
	 * The kernel writes 4 KiB at a time; splice straight to the file would take one call per few KiB. Through
	 * the private pipe, the file gets a handful of splices per chunk (the pipe fills by slots).
	 */
	ck_assert_uint_ge(st.chunks, 16);
	ck_assert_msg(st.out_calls <= st.chunks * 4, "%lu file splices for %lu chunks", st.out_calls, st.chunks);
	close(out);
}
END_TEST

/*
 * The disk's cache emptied behind the writeback (write/flush.c), through an empty unnamed file in the directory:
 * _i 0 with a directory, at most a flush per chunk written back, and no file left there; _i 1 with none, _i 2 with no writeback of the engine's own
 * (hygiene off: nothing is behind it), no flush. The core whole each time, and the final sync timed.
 */
START_TEST(test_flushes_behind_the_writeback)
{
	struct engine_opts o;
	struct engine_stats st;
	size_t size = 64 * MIB;
	int out = out_file("core", 0), dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(dfd, 0);
	engine_defaults(&o);
	o.chunk = MIB;
	o.flush_dir = _i == 1 ? -1 : dfd;
	o.hygiene = _i != 2;
	st = run(&o, size, out);
	assert_complete(out, &st, size);
	/* 64 chunks and the one that finds the end. */
	ck_assert_uint_ge(st.chunks, 64);
	if (_i == 0)
		ck_assert_msg(st.flushes >= 1 && st.flushes <= st.chunks - 2, "%u flushes for %lu chunks", st.flushes,
			      st.chunks);
	else
		ck_assert_uint_eq(st.flushes, 0);
	ck_assert_uint_gt(st.sync_us, 0);
	ck_assert_int_eq(unit_entries(dir), 1);
	close(dfd);
	close(out);
}
END_TEST

START_TEST(test_refused_from_start)
{
	static const enum strategy splicers[] = { STRATEGY_SPLICE, STRATEGY_NAIVE_SPLICE };
	struct engine_opts o;
	struct engine_stats st;
	size_t size = 20 * MIB + 1;
	int out = out_file("core", O_APPEND);

	/* splice(2) refuses O_APPEND output with EINVAL: the kernel itself, no mock. */
	engine_defaults(&o);
	o.strategy = splicers[_i];
	st = run(&o, size, out);
	assert_complete(out, &st, size);
	ck_assert(st.fell_back);
	ck_assert_int_eq(st.fallback_error, -EINVAL);
	close(out);
}
END_TEST

/*
 * The producer shares the output's open file description; halfway it sets O_APPEND on it, so the engine's next
 * file splice is refused with data already staged in the private pipe. Nothing may be lost or doubled.
 */
START_TEST(test_refused_mid_stream)
{
	struct engine_opts o;
	struct engine_stats st;
	size_t size = 48 * MIB;
	int p[2], out = out_file("core", 0);
	pid_t pid;

	engine_defaults(&o);
	o.strategy = STRATEGY_SPLICE;
	o.chunk = 1 * MIB;
	o.in_pipe = 64 * 1024;
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int r;

		close(p[0]);
		r = producer_write(p[1], 0, size / 2, WRITE_4K);

		fcntl(out, F_SETFL, fcntl(out, F_GETFL) | O_APPEND);
		_exit(r == 0 && producer_write(p[1], size / 2, size, WRITE_4K) == 0 ? 0 : 1);
	}
	close(p[1]);
	ck_assert_int_eq(engine_copy(p[0], out, &o, &st), 0);
	close(p[0]);
	ck_assert_int_eq(unit_reap(pid), 0);
	ck_assert(st.fell_back);
	ck_assert_int_eq(st.fallback_error, -EINVAL);
	assert_complete(out, &st, size);
	close(out);
}
END_TEST

START_TEST(test_reserve_stops_capture)
{
	struct engine_opts o;
	struct engine_stats st;
	int out = out_file("core", 0);

	/* A reserve of 100% can never be met: nothing is written and the rest of the input is known to exist. */
	engine_defaults(&o);
	o.keep_free = (struct size_spec) { 100, true, UINT64_MAX };
	st = run(&o, 8 * MIB, out);
	ck_assert_uint_eq(st.bytes, 0);
	ck_assert(st.truncated);
	ck_assert_uint_lt(st.min_avail, UINT64_MAX);
	close(out);
}
END_TEST

START_TEST(test_empty_input)
{
	struct engine_opts o;
	struct engine_stats st;
	int out = out_file("core", 0);

	engine_defaults(&o);
	o.read_ahead = _i ? 2 : 0;
	st = run(&o, 0, out);
	ck_assert_uint_eq(st.bytes, 0);
	ck_assert(!st.truncated);
	close(out);
}
END_TEST

START_TEST(test_no_preallocation_left)
{
	struct engine_opts o;
	struct engine_stats st;
	struct stat s;
	size_t size = 3 * MIB + 100;
	int out = out_file("core", 0);

	/* One 16 MiB chunk is preallocated for 3 MiB of data; none of it may outlive the capture. */
	engine_defaults(&o);
	o.prealloc = _i;
	st = run(&o, size, out);
	assert_complete(out, &st, size);
	ck_assert_int_eq(fstat(out, &s), 0);
	ck_assert_int_le((long long)s.st_blocks * 512, (long long)size + 64 * 1024);
	close(out);
}
END_TEST

/*
 * Sparse output, with every preallocation mode (_i): a core-like stream (one zero page in three) and one of zeros
 * only. The file reads back byte for byte, its holes are where the zero pages were (SEEK_HOLE), it takes on disk
 * about its data, and no preallocation is left.
 */
START_TEST(test_sparse)
{
	static const enum data_kind kinds[] = { DATA_CORE, DATA_ZEROS };
	struct engine_opts o;
	struct engine_stats st;
	struct stat s;
	size_t size = 24 * MIB + 3 * 4096;   /* a trailing run of zero pages in both */
	int out;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		uint64_t zeros = kinds[k] == DATA_ZEROS ? size : size / 4096 / 3 * 4096;

		out = out_file(kinds[k] == DATA_ZEROS ? "zeros" : "core", 0);
		ck_assert_int_eq(data_prepare(kinds[k]), 0);
		engine_defaults(&o);
		o.prealloc = _i;
		st = run(&o, size, out);
		assert_complete(out, &st, size);
		ck_assert_uint_eq(st.holes, zeros);
		ck_assert_int_eq(fstat(out, &s), 0);
		ck_assert_uint_eq(st.allocated, (uint64_t)s.st_blocks * 512);
		/* Data, and a block or so per extent of metadata slack at most. */
		ck_assert_msg(st.allocated <= size - zeros + 64 * 1024 && st.allocated + 64 * 1024 >= size - zeros,
			      "%llu bytes allocated for %llu of data", (unsigned long long)st.allocated,
			      (unsigned long long)(size - zeros));
		/* Page 2 of each three is the first hole of a core-like stream; all of a stream of zeros is one. */
		ck_assert_int_eq(lseek(out, 0, SEEK_HOLE), kinds[k] == DATA_ZEROS ? 0 : 2 * 4096);
		close(out);
	}
}
END_TEST

/* Sparse=no, or splice: the file is dense, zeros and all. */
START_TEST(test_dense)
{
	struct engine_opts o;
	struct engine_stats st;
	struct stat s;
	size_t size = 8 * MIB;
	int out = out_file("core", 0);

	ck_assert_int_eq(data_prepare(DATA_ZEROS), 0);
	engine_defaults(&o);
	o.sparse = _i == 0 ? false : true;
	o.strategy = _i == 0 ? STRATEGY_READWRITE : STRATEGY_SPLICE;
	st = run(&o, size, out);
	assert_complete(out, &st, size);
	ck_assert_uint_eq(st.holes, 0);
	ck_assert_int_eq(fstat(out, &s), 0);
	ck_assert_uint_ge((uint64_t)s.st_blocks * 512, size);
	close(out);
}
END_TEST

START_TEST(test_core_limits_cut_exactly)
{
	struct engine_opts o;
	struct engine_stats st;
	size_t cut = 5 * MIB + 100;
	int out = out_file("core", 0);

	/* _i 0: MaxCoreSize, 1: RLIMIT_CORE. Cut at the byte, not at a block. 2, 3: the same, read ahead. */
	engine_defaults(&o);
	o.read_ahead = _i >= 2 ? 3 : 0;
	if (_i % 2 == 0)
		o.max_core = cut;
	else
		o.rlimit = cut;
	st = run(&o, 20 * MIB, out);
	ck_assert(st.truncated);
	ck_assert_int_eq(st.limit, _i % 2 == 0 ? LIMIT_MAX_CORE : LIMIT_RLIMIT);
	ck_assert_uint_eq(st.bytes, cut);
	ck_assert_uint_eq((uint64_t)producer_prefix(out), cut);
	close(out);
}
END_TEST

/*
 * A stand-in for the handler's ledger: others use `used` bytes, and make_room can free them; fail_after makes
 * used() fail from its Nth call on (0: never).
 */
struct fake_room {
	uint64_t used, can_free, asked, reserved;
	int calls, used_calls, fail_after;
	int shown, pending;       /* reserve() calls whose chunk statfs shows (reserved ahead), or not */
	int late;                 /* and calls once statfs was seen late (everything held pending then) */
};

static int fake_used(void *ctx, uint64_t *bytes, uint64_t *pending)
{
	struct fake_room *f = ctx;

	if (f->fail_after && ++f->used_calls >= f->fail_after)
		return -EIO;
	*bytes = f->used;
	*pending = 0;
	return 0;
}

static int fake_make_room(void *ctx, uint64_t need, uint64_t total, uint64_t *freed)
{
	struct fake_room *f = ctx;

	(void) total;
	*freed = f->can_free;
	f->asked = need;
	f->calls++;
	f->used -= *freed;
	f->can_free = 0;
	return 0;
}

static int fake_reserve(void *ctx, uint64_t bytes, uint64_t pending, bool late)
{
	struct fake_room *f = ctx;

	f->reserved = bytes;
	*(late ? &f->late : pending > 0 ? &f->pending : &f->shown) += 1;
	return 0;
}

START_TEST(test_max_use_asks_for_room)
{
	struct fake_room f = { .used = 10 * MIB, .can_free = _i ? 10 * MIB : 0 };
	struct engine_hooks h = { .used = fake_used, .make_room = fake_make_room, .reserve = fake_reserve, .ctx = &f };
	struct engine_opts o;
	struct engine_stats st;
	int out = out_file("core", 0);

	/* MaxUse 12 MiB with 10 MiB used by others: 2 MiB fit; _i 1: make_room frees the 10 MiB. */
	engine_defaults(&o);
	o.chunk = 1 * MIB;
	o.hooks = &h;
	o.max_use = (struct size_spec) { 12 * MIB, false, UINT64_MAX };
	st = run(&o, 8 * MIB, out);
	ck_assert_int_ge(f.calls, 1);
	ck_assert_uint_eq(f.asked, 1 * MIB);
	if (_i == 0) {
		ck_assert(st.truncated);
		ck_assert_int_eq(st.limit, LIMIT_MAX_USE);
		ck_assert_uint_eq(st.bytes, 2 * MIB);
	} else {
		ck_assert(!st.truncated);
		ck_assert_uint_eq(st.bytes, 8 * MIB);
	}
	/* The last reservation covers what was written. */
	ck_assert_uint_ge(f.reserved, st.bytes);
	ck_assert_uint_eq((uint64_t)producer_prefix(out), st.bytes);
	close(out);
}
END_TEST

/* A ledger that fails mid-capture: the error is kept, MaxUse no longer applies, the core is still complete. */
START_TEST(test_hook_error_reported)
{
	struct fake_room f = { .used = 10 * MIB, .fail_after = 3 };
	struct engine_hooks h = { .used = fake_used, .make_room = fake_make_room, .reserve = fake_reserve, .ctx = &f };
	struct engine_opts o;
	struct engine_stats st;
	int out = out_file("core", 0);

	engine_defaults(&o);
	o.chunk = 1 * MIB;
	o.hooks = &h;
	o.max_use = (struct size_spec) { 16 * MIB, false, UINT64_MAX };
	st = run(&o, 8 * MIB, out);
	ck_assert_int_eq(st.hook_error, -EIO);
	ck_assert_int_eq(f.used_calls, 3);
	ck_assert(!st.truncated);
	ck_assert_uint_eq(st.bytes, 8 * MIB);
	ck_assert_uint_eq((uint64_t)producer_prefix(out), st.bytes);
	close(out);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_int_eq(strategy_from_string("splice"), STRATEGY_SPLICE);
	ck_assert_int_eq(strategy_from_string("readwrite"), STRATEGY_READWRITE);
	ck_assert_int_eq(strategy_from_string("naive-splice"), STRATEGY_NAIVE_SPLICE);
	ck_assert_int_eq(strategy_from_string("mmap"), -EINVAL);
	ck_assert_str_eq(strategy_to_string(STRATEGY_READWRITE), "readwrite");
	ck_assert_int_eq(prealloc_from_string("keep-size"), PREALLOC_KEEP_SIZE);
	ck_assert_int_eq(prealloc_from_string("ftruncate"), PREALLOC_FTRUNCATE);
	ck_assert_int_eq(prealloc_from_string("fallocate"), -EINVAL);
}
END_TEST

/* Decompresses the zstd file in into out, from offset 0. 0, or -1 when it is not one whole, valid frame. */
static int unzstd(int in, int out)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	static char ib[1 << 17], ob[1 << 17];
	size_t left = 1;
	ssize_t n;

	lseek(in, 0, SEEK_SET);
	while ((n = read(in, ib, sizeof(ib))) > 0) {
		ZSTD_inBuffer i = { ib, (size_t)n, 0 };

		while (i.pos < i.size) {
			ZSTD_outBuffer o = { ob, sizeof(ob), 0 };

			left = ZSTD_decompressStream(d, &o, &i);
			if (ZSTD_isError(left) || write(out, ob, o.pos) != (ssize_t)o.pos)
				return ZSTD_freeDCtx(d), -1;
		}
	}
	ZSTD_freeDCtx(d);
	return left == 0 ? 0 : -1;
}

/* A core's first bytes as the kernel lays them out: ELF header, two program headers, notes of notes_len bytes. */
static void core_prefix(unsigned char *in, size_t notes_len)
{
	Elf64_Phdr ph[2] = { { .p_type = PT_NOTE, .p_offset = sizeof(Elf64_Ehdr) + sizeof(ph), .p_filesz = notes_len },
			     { .p_type = PT_LOAD, .p_offset = sizeof(Elf64_Ehdr) + sizeof(ph) + notes_len } };

	unit_core_ehdr(in, 2);
	memcpy(in + sizeof(Elf64_Ehdr), ph, sizeof(ph));
}

/*
 * The head is read as far as the core's headers and notes go, to a page, not the whole buffer: its pages would be
 * RSS for memory that passes through anyway. _i 0: notes to 10,176 (a head of 12 KiB); 1: compressed as it comes;
 * 2: notes past a buffer of 1 MiB (the buffer, full); 3: notes of 2 MiB in a buffer of 4 (the handler's is larger
 * than ELFCORE_HEAD_MAX: 400 threads' notes went past it, and a core compressed as it came had no trace), compressed;
 * 4: no core at all, with that buffer: ELFCORE_HEAD_MAX of it, as before. The file is the input, byte for byte,
 * whatever the head took.
 */
START_TEST(test_head_ends_with_the_notes)
{
	/* Static: the writer is a fork that leaves by _exit, and valgrind would count heap buffers lost there. */
	static unsigned char head[4 * MIB], in[3 * MIB + 5], back[sizeof(in) + 1];
	static const size_t took[] = { 12288, 12288, MIB, 2 * MIB + 4096, ELFCORE_HEAD_MAX };
	size_t size = sizeof(in), notes = _i >= 2 ? 2 * MIB : 10000;
	struct engine_opts o;
	struct engine_stats st;
	int out = out_file("core", 0), unz = out_file("back", 0), p[2];
	pid_t pid;

	randombytes_buf(in, size);
	if (_i != 4)
		core_prefix(in, notes);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		/* In 4 KiB writes, as the kernel writes. */
		for (size_t done = 0; done < size; done += 4096)
			if (io_write_full(p[1], in + done, size - done < 4096 ? size - done : 4096) < 0)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	engine_defaults(&o);
	o.strategy = STRATEGY_READWRITE;
	o.compress = _i == 1 || _i == 3;
	o.head = head;
	o.head_len = _i >= 3 ? sizeof(head) : MIB;
	ck_assert_int_eq(engine_copy(p[0], out, &o, &st), 0);
	close(p[0]);
	ck_assert_int_eq(unit_reap(pid), 0);
	ck_assert_uint_eq(st.head_bytes, took[_i]);
	ck_assert_mem_eq(head, in, st.head_bytes);
	ck_assert_uint_eq(st.input, size);
	if (o.compress)
		ck_assert_int_eq(unzstd(out, unz), 0);
	ck_assert_int_eq(pread(o.compress ? unz : out, back, size + 1, 0), (ssize_t)size);
	ck_assert_mem_eq(back, in, size);
	close(out), close(unz);
}
END_TEST

/*
 * Compressed: from the kernel's pipe, and from a stored raw file (as the handler compresses after letting the
 * process go): a zstd frame whose bytes are the input's, the stats counting input and output apart.
 */
START_TEST(test_compress)
{
	struct engine_opts o;
	struct engine_stats st, zst;
	size_t size = 20 * MIB + 777;
	int raw = out_file("raw", 0), z = out_file("raw.zst", 0), back = out_file("back", 0);

	ck_assert_int_eq(data_prepare(DATA_CORE), 0);
	engine_defaults(&o);
	o.compress = 1;
	st = run(&o, size, z);
	ck_assert_uint_eq(st.input, size);
	ck_assert_uint_lt(st.bytes, size);
	ck_assert_int_eq(unzstd(z, back), 0);
	assert_complete(back, &(struct engine_stats) { .bytes = size }, size);
	/* From the raw file, within the same budget as its own bytes. */
	o.compress = 0;
	st = run(&o, size, raw);
	o.compress = 1;
	o.held_base = st.allocated;
	ck_assert_int_eq(ftruncate(z, 0), 0);
	ck_assert_int_eq(lseek(z, 0, SEEK_SET), 0);
	ck_assert_int_eq(lseek(raw, 0, SEEK_SET), 0);
	ck_assert_int_eq(engine_copy(raw, z, &o, &zst), 0);
	ck_assert_uint_eq(zst.input, size);
	ck_assert(!zst.truncated);
	ck_assert_int_eq(ftruncate(back, 0), 0);
	ck_assert_int_eq(lseek(back, 0, SEEK_SET), 0);
	ck_assert_int_eq(unzstd(z, back), 0);
	assert_complete(back, &(struct engine_stats) { .bytes = size }, size);
	close(raw), close(z), close(back);
}
END_TEST

/* min_hole: single zero pages between data are written; long runs of zeros still become holes. */
START_TEST(test_min_hole)
{
	struct engine_opts o;
	struct engine_stats st;
	size_t size = 8 * MIB;
	int out = out_file("minhole", 0);

	engine_defaults(&o);
	o.min_hole = 64 * 1024;
	ck_assert_int_eq(data_prepare(DATA_CORE), 0);
	st = run(&o, size, out);
	assert_complete(out, &st, size);
	ck_assert_uint_eq(st.holes, 0);
	ck_assert_int_eq(ftruncate(out, 0), 0);
	ck_assert_int_eq(lseek(out, 0, SEEK_SET), 0);
	ck_assert_int_eq(data_prepare(DATA_ZEROS), 0);
	st = run(&o, size, out);
	ck_assert_uint_eq(st.holes, size);
	close(out);
}
END_TEST

/*
 * A compressed copy cut by a limit is no zstd stream that a reader could take for whole. _i 0: cut in a frame of
 * zstd's; 1: after chunks of random data that went out stored, frames all whole.
 */
START_TEST(test_compress_cut_is_not_whole)
{
	struct engine_opts o;
	struct engine_stats st;
	int z = out_file("cut.zst", 0), back = out_file("back", 0);

	engine_defaults(&o);
	o.compress = 1;
	o.max_core = _i ? 12 * MIB : 4 * MIB;
	o.chunk = _i ? 4 * MIB : MIB;
	st = run(&o, 16 * MIB, z);
	ck_assert(st.truncated);
	if (_i)
		ck_assert_uint_ge(st.stored_chunks, 1);
	ck_assert_int_ne(unzstd(z, back), 0);
	/* What came before the cut is there, in order. */
	ck_assert_uint_eq((uint64_t)producer_prefix(back), o.max_core);
	close(z), close(back);
}
END_TEST

/*
 * Socket mode's dump that falls silent (SocketSilenceSec=): a peer sends part of a core on a stream socket, then
 * keeps the connection open and says nothing. The copy ends at the silence with what came, whole, and says so;
 * _i: raw or compressed as it comes, each read in the copy's thread (ReadAhead=auto's choice for the compressed)
 * and by the read-ahead thread.
 */
START_TEST(test_silence_ends_the_copy)
{
	static char sent[3 * MIB + 4097], got[3 * MIB + 4097];
	struct engine_opts o;
	struct engine_stats st;
	int out = out_file("core", 0), back = out_file("back", 0), sv[2];
	pid_t pid;

	for (size_t i = 0; i < sizeof(sent); i++)
		sent[i] = (char)(i * 2654435761u >> 13);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		if (write(sv[1], sent, sizeof(sent)) != (ssize_t)sizeof(sent))
			_exit(1);
		pause();
		_exit(0);
	}
	close(sv[1]);
	engine_defaults(&o);
	o.silence_ms = 300;
	o.compress = _i >= 2;
	o.read_ahead = _i % 2 ? 4 : 0;
	ck_assert_int_eq(engine_copy(sv[0], out, &o, &st), 0);
	kill(pid, SIGKILL);
	(void) unit_reap(pid);
	close(sv[0]);
	ck_assert(st.silent);
	ck_assert(st.cut_short);
	ck_assert_uint_eq(st.input, sizeof(sent));
	if (o.compress)
		ck_assert_int_eq(unzstd(out, back), 0);
	ck_assert_int_eq(pread(o.compress ? back : out, got, sizeof(got), 0), (ssize_t)sizeof(sent));
	ck_assert_mem_eq(got, sent, sizeof(sent));
	close(out), close(back);
}
END_TEST

/* Writes the file in (from its start) into the pipe p in 64 KiB writes, pause_us apart, in a child: its pid. */
static pid_t feed_file(int in, int p[2], unsigned pause_us)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		static char buf[64 * 1024];
		ssize_t n;

		close(p[0]);
		while ((n = pread(in, buf, sizeof(buf), lseek(in, 0, SEEK_CUR))) > 0)
			if (write(p[1], buf, (size_t)n) != n || lseek(in, n, SEEK_CUR) < 0 ||
			    (pause_us && usleep(pause_us) < 0))
				_exit(1);
		_exit(n < 0);
	}
	close(p[1]);
	return pid;
}

/* Random bytes into fd from offset from to offset to, a MiB at a time (from /dev/urandom). */
static void fill_random(int fd, off_t from, off_t to)
{
	static char buf[MIB];
	int rnd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(rnd, 0);
	for (off_t at = from; at < to; at += MIB) {
		ck_assert_int_eq(read(rnd, buf, MIB), MIB);
		ck_assert_int_eq(pwrite(fd, buf, MIB, at), MIB);
	}
	close(rnd);
}

/* Whether the files a and b hold the same bytes. */
static bool same_bytes(int a, int b)
{
	static char x[MIB], y[MIB];
	off_t at = 0;
	ssize_t n, m;

	do {
		n = pread(a, x, sizeof(x), at);
		m = pread(b, y, sizeof(y), at);
		if (n != m || n < 0 || memcmp(x, y, (size_t)n) != 0)
			return false;
		at += n;
	} while (n > 0);
	return true;
}

/* The file in, fed through a pipe (pause_us between writes), copied into out with o: the copy's stats, whole. */
static struct engine_stats piped(int in, int out, const struct engine_opts *o, unsigned pause_us)
{
	struct engine_stats st;
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = feed_file(in, p, pause_us);
	ck_assert_int_eq(engine_copy(p[0], out, o, &st), 0);
	close(p[0]);
	ck_assert_int_eq(unit_reap(pid), 0);
	ck_assert(!st.truncated);
	return st;
}

/*
 * The file in, fed through a pipe, compressed as it comes into z in chunks of 4 MiB (zstd's threads: workers):
 * the copy's stats, the copy whole.
 */
static struct engine_stats compress_piped(int in, int z, int workers)
{
	struct engine_opts o;
	struct engine_stats st;

	engine_defaults(&o);
	o.compress = 1;
	o.compress_workers = workers;
	o.chunk = 4 * MIB;
	st = piped(in, z, &o, 0);
	ck_assert(st.compressed);
	return st;
}

/* Decrypts the age file in (from offset 0) into out with identity. 0, or -1 when it is not one whole, valid file. */
static int unage(int in, int out, const unsigned char identity[AGE_KEY_BYTES])
{
	static unsigned char buf[AGE_CHUNK];
	struct age_reader a;
	ssize_t n;

	if (lseek(in, 0, SEEK_SET) < 0 || age_open(&a, in, identity) < 0)
		return -1;
	while ((n = age_read(&a, buf)) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	age_reader_free(&a);
	return n == 0 ? 0 : -1;
}

/*
 * A core compressed as it comes (from a pipe) stores the chunks after one of random data that does not shrink (raw
 * blocks, zero pages as RLE blocks), and tries zstd again every fourth: the file is a zstd stream of frames that
 * gives the input back whole, no larger than its data. The first chunk, a probe, is stored from its second MiB on:
 * its first did not shrink; the blocks reserved for stored chunks do not outlive the copy. _i 0: with a zstd thread;
 * _i 1: in the caller's.
 */
START_TEST(test_compress_paces)
{
	struct engine_stats st;
	struct stat s;
	int in = out_file("in", 0), z = out_file("z", 0), back = out_file("back", 0);

	fill_random(in, 0, 8 * MIB);
	/* Then 16 MiB of zeros and one random MiB at the end: the stream must hold them all. */
	fill_random(in, 24 * MIB, 25 * MIB);
	ck_assert_int_eq(lseek(in, 0, SEEK_SET), 0);
	st = compress_piped(in, z, _i == 0 ? 1 : 0);
	ck_assert_uint_eq(st.input, 25 * MIB);
	ck_assert_int_eq(st.level, 1);
	ck_assert_uint_ge(st.paced_raw, 1);
	ck_assert_uint_ge(st.sampled_raw, 1);
	ck_assert_uint_le(st.sampled_raw, st.paced_raw);
	ck_assert_uint_ge(st.stored_chunks, 3);
	ck_assert_uint_ge(st.stored_in, 12 * MIB);
	/* 9 MiB that do not shrink, stored raw: about as many bytes, no more. */
	ck_assert_uint_lt(st.bytes, 9 * MIB + 64 * 1024);
	/* Stored chunks are reserved ahead, a chunk each (of zeros too, whose RLE blocks take bytes): none is left. */
	ck_assert_int_eq(fstat(z, &s), 0);
	ck_assert_int_le((long long)s.st_blocks * 512, (long long)st.bytes + 64 * 1024);
	ck_assert_int_eq(unzstd(z, back), 0);
	ck_assert(same_bytes(in, back));
	close(in), close(z), close(back);
}
END_TEST

/*
 * Memory whose data does not shrink, with a zero page in three (as a real core's idle stacks and untouched heap):
 * zstd would make it two thirds of its size, all of it from the zero pages, which stored chunks keep as RLE blocks
 * as well. Judged on the data, the zero pages aside, the chunks go out stored from the first probe's first MiB on,
 * no larger, and the stream gives the input back whole. _i 0: with a zstd thread; _i 1: in the caller's.
 */
START_TEST(test_compress_judges_data_not_zeros)
{
	static char page[4096];
	struct engine_stats st;
	int in = out_file("in", 0), z = out_file("z", 0), back = out_file("back", 0), rnd;
	uint64_t size = 24 * MIB, data = 0;

	rnd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(rnd, 0);
	for (off_t at = 0; at < (off_t)size; at += (off_t)sizeof(page)) {
		if (at / (off_t)sizeof(page) % 3 == 2)
			continue;
		ck_assert_int_eq(read(rnd, page, sizeof(page)), sizeof(page));
		ck_assert_int_eq(pwrite(in, page, sizeof(page), at), sizeof(page));
		data += sizeof(page);
	}
	close(rnd);
	ck_assert_int_eq(ftruncate(in, (off_t)size), 0);
	st = compress_piped(in, z, _i == 0 ? 1 : 0);
	ck_assert_uint_eq(st.input, size);
	ck_assert_uint_ge(st.sampled_raw, 1);
	ck_assert_uint_ge(st.stored_chunks, 3);
	/* As zstd would keep it: its data, and a few bytes for each run of zeros. */
	ck_assert_uint_lt(st.bytes, data + 64 * 1024);
	ck_assert_int_eq(unzstd(z, back), 0);
	ck_assert(same_bytes(in, back));
	close(in), close(z), close(back);
}
END_TEST

/*
 * What the other captures learn of a core compressed or encrypted as it comes, chunk by chunk: a chunk through zstd,
 * whose size is not known before it is written, is pending in the ledger (statfs shows it only as it is written), and
 * so is a stored one not encrypted (left to the delayed allocation); an encrypted chunk stored or encrypted as it is,
 * reserved ahead, is in statfs already and pending nowhere, not counted twice; no reserved block outlives the copy.
 * 40 MiB of random data in chunks of 4. _i 0, compressed: a probe through zstd, eight chunks stored, a probe again
 * (and the step that finds the end, either); _i 1, compressed and encrypted, the same; _i 2, encrypted alone: every
 * chunk reserved. Reserved on ext4 only (engine.c, plan_reserve()): pending elsewhere.
 */
START_TEST(test_packed_tells_the_ledger)
{
	struct fake_room f = { .used = 0 };
	struct engine_hooks h = { .used = fake_used, .make_room = fake_make_room, .reserve = fake_reserve, .ctx = &f };
	unsigned char sec[AGE_KEY_BYTES], pub[1][AGE_KEY_BYTES];
	struct engine_opts o;
	struct engine_stats st;
	struct statfs sfs;
	struct stat s;
	int in = out_file("in", 0), out = out_file("out", 0), z = out_file("z", 0), back = out_file("back", 0);
	int zstd, stored;

	fill_random(in, 0, 40 * MIB);
	ck_assert_int_ge(sodium_init(), 0);
	randombytes_buf(sec, sizeof(sec));
	ck_assert_int_eq(crypto_scalarmult_base(pub[0], sec), 0);
	engine_defaults(&o);
	o.compress = _i < 2 ? 1 : 0;
	o.chunk = 4 * MIB;
	o.hooks = &h;
	if (_i > 0) {
		o.age_keys = (const unsigned char (*)[AGE_KEY_BYTES])pub;
		o.n_age = 1;
	}
	st = piped(in, out, &o, 0);
	zstd = (int)st.zstd_chunks;
	/* Encrypted alone, every chunk of data is reserved as a raw one is. */
	stored = _i < 2 ? (int)st.stored_chunks : 10;
	ck_assert_uint_eq(st.input, 40 * MIB);
	ck_assert_int_eq(zstd, _i < 2 ? 2 : 0);
	ck_assert_int_eq(stored, _i < 2 ? 8 : 10);
	ck_assert_uint_ge(st.chunks, 10);
	ck_assert_int_eq(fstatfs(out, &sfs), 0);
	/*
	 * Another writer freeing space meanwhile (the suites run side by side) makes statfs look late: from then on the
	 * copy says all it holds is pending (room.c), and those calls tell nothing here.
	 */
	/* Reserved ahead: an encrypted chunk of a known size, on ext4 (engine.c, plan_reserve()). */
	if ((unsigned long)sfs.f_type == EXT4_SUPER_MAGIC && _i > 0) {
		ck_assert_int_ge(f.pending + f.late, zstd);
		ck_assert_int_le(f.pending, zstd + 1);
		ck_assert_int_ge(f.shown + f.late, stored);
		ck_assert_int_le(f.shown, stored + 1);
	} else {
		ck_assert_int_eq(f.shown, 0);
		ck_assert_int_ge(f.pending + f.late, zstd + stored);
	}
	ck_assert_int_eq(fstat(out, &s), 0);
	ck_assert_int_le((long long)s.st_blocks * 512, (long long)st.bytes + 64 * 1024);
	if (_i > 0)
		ck_assert_int_eq(unage(out, _i < 2 ? z : back, sec), 0);
	if (_i < 2)
		ck_assert_int_eq(unzstd(_i == 0 ? out : z, back), 0);
	ck_assert(same_bytes(in, back));
	close(in), close(out), close(z), close(back);
}
END_TEST

/*
 * The probe that gives up on data that does not shrink counts the raw file's data, not its holes: 64 MiB of hole
 * (idle stacks) then random data is not worth compressing, though its input as a whole would halve.
 */
START_TEST(test_probe_counts_data_not_holes)
{
	struct engine_opts o;
	struct engine_stats st;
	int raw = out_file("raw", 0), z = out_file("raw.zst", 0);

	fill_random(raw, 64 * MIB, 112 * MIB);
	engine_defaults(&o);
	o.compress = 1;
	o.probe = 16 * MIB;
	o.probe_pct = 90;
	ck_assert_int_eq(engine_copy(raw, z, &o, &st), -EDOM);
	ck_assert_uint_ge(st.input, 64 * MIB + 16 * MIB);
	ck_assert_uint_ge(st.input_data, 16 * MIB);
	ck_assert_uint_le(st.input_data, st.input - 64 * MIB);
	/* Counted as input, it would have passed: half of it compresses to nothing. */
	ck_assert_uint_lt(st.bytes * 100, st.input * 90);
	close(raw), close(z);
}
END_TEST

/*
 * Compressing with ahead_stored (socket mode's ReadAhead=auto), the read-ahead thread starts at the first read after
 * chunks go out stored, and only then; stored from the ring, a chunk is written a ring's buffer (1 MiB) at a time.
 * 12 MiB in chunks of 4, zstd fed 256 KiB at a time. _i 0, random data: its first probe is stored from its second
 * MiB on, read ahead from there; _i 1, text that shrinks, fed slowly so that zstd is not behind: no thread (where
 * zstd falls behind all the same, the thread from the next chunk on); _i 2,
 * random data without ahead_stored: read ahead from the first byte. Each gives the input back whole.
 */
START_TEST(test_reads_ahead_once_stored)
{
	static char text[MIB];
	struct engine_opts o;
	struct engine_stats st;
	int in = out_file("in", 0), z = out_file("z", 0), back = out_file("back", 0);

	if (_i == 1) {
		for (size_t at = 0; at + 64 <= sizeof(text); at += 64)
			snprintf(text + at, 64, "line %08zu of a core whose memory shrinks %*s\n", at / 64, 13, "");
		for (off_t at = 0; at < 12 * MIB; at += MIB)
			ck_assert_int_eq(pwrite(in, text, MIB, at), MIB);
	} else {
		fill_random(in, 0, 12 * MIB);
	}
	engine_defaults(&o);
	o.compress = 1;
	o.chunk = 4 * MIB;
	o.buffer = 256 * 1024;
	o.read_ahead = 4;
	o.ahead_slot = MIB;
	o.ahead_stored = _i != 2;
	st = piped(in, z, &o, _i == 1 ? 2000 : 0);
	ck_assert_uint_eq(st.input, 12 * MIB);
	if (_i == 1 && st.stored_chunks == 0) {
		ck_assert(!st.read_ahead);
		ck_assert_uint_lt(st.bytes, 4 * MIB);
	} else if (_i == 1) {
		/* zstd fell behind all the same (under valgrind it does): from the chunk after, never within one. */
		ck_assert_uint_eq(st.sampled_raw, 0);
		ck_assert(st.read_ahead);
		ck_assert_uint_gt(st.ahead_from, 0);
		ck_assert_uint_eq(st.ahead_from % (4 * MIB), 0);
	} else {
		ck_assert(st.read_ahead);
		ck_assert_uint_eq(st.ahead_from, _i == 0 ? MIB : 0);
		ck_assert_uint_ge(st.stored_chunks, 2);
		/* The sample's emits through zstd (128 KiB each), then 11 MiB stored: 11 writes, not 44. */
		ck_assert_uint_le(st.out_calls, 28);
	}
	ck_assert_int_eq(unzstd(z, back), 0);
	ck_assert(same_bytes(in, back));
	close(in), close(z), close(back);
}
END_TEST

/* What the progress callback saw at each chunk's end: calls, ends off the grid, ends past what the file holds. */
struct chunk_ends {
	unsigned calls, off_grid, unwritten;
};

static void note_end(void *ctx, int out, uint64_t written, bool raw, const void *head, size_t head_bytes)
{
	struct chunk_ends *e = ctx;
	struct stat s;

	(void) raw, (void) head, (void) head_bytes;
	if (written == 0)
		return;
	e->calls++;
	if (written % STORE_GRID != 0)
		e->off_grid++;
	if (fstat(out, &s) != 0 || (uint64_t)s.st_size != written)
		e->unwritten++;
}

/*
 * Stored frames are written on the grid (grid.c): every write of them ends on it, and what is past
 * its last line waits for the next. 26 MiB of random data and a few bytes, in chunks of 4: each chunk, its probe's
 * first MiB through zstd and the rest stored, ends on the grid, with the file holding all the engine counts; the
 * stream gives the input back whole. _i 0: stored 256 KiB at a time (pipe mode); _i 1: from the read-ahead ring, a
 * MiB at a time (socket mode).
 */
START_TEST(test_stored_writes_end_on_the_grid)
{
	struct chunk_ends e = { 0 };
	struct engine_opts o;
	struct engine_stats st;
	int in = out_file("in", 0), z = out_file("z", 0), back = out_file("back", 0);

	fill_random(in, 0, 27 * MIB);
	ck_assert_int_eq(ftruncate(in, 26 * MIB + 12345), 0);
	engine_defaults(&o);
	o.compress = 1;
	o.chunk = 4 * MIB;
	o.buffer = 256 * 1024;
	if (_i == 1) {
		o.read_ahead = 4;
		o.ahead_slot = MIB;
		o.ahead_stored = true;
	}
	o.progress = note_end;
	o.progress_ctx = &e;
	st = piped(in, z, &o, 0);
	ck_assert_uint_eq(st.input, 26 * MIB + 12345);
	ck_assert_uint_ge(st.stored_chunks, 4);
	ck_assert_uint_eq(e.calls, 7);
	ck_assert_uint_eq(e.off_grid, 0);
	ck_assert_uint_eq(e.unwritten, 0);
	ck_assert_int_eq(unzstd(z, back), 0);
	ck_assert(same_bytes(in, back));
	close(in), close(z), close(back);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_each_strategy_identical, 0, 4);
	tcase_add_loop_test(tc, test_head_ends_with_the_notes, 0, 5);
	tcase_add_test(tc, test_staged_splice_moves_whole_chunks);
	tcase_add_loop_test(tc, test_flushes_behind_the_writeback, 0, 3);
	tcase_add_loop_test(tc, test_refused_from_start, 0, 2);
	tcase_add_test(tc, test_refused_mid_stream);
	tcase_add_test(tc, test_reserve_stops_capture);
	tcase_add_loop_test(tc, test_empty_input, 0, 2);
	tcase_add_loop_test(tc, test_no_preallocation_left, PREALLOC_KEEP_SIZE, _PREALLOC_MAX);
	tcase_add_loop_test(tc, test_sparse, PREALLOC_KEEP_SIZE, _PREALLOC_MAX);
	tcase_add_loop_test(tc, test_dense, 0, 2);
	tcase_add_loop_test(tc, test_core_limits_cut_exactly, 0, 4);
	tcase_add_loop_test(tc, test_max_use_asks_for_room, 0, 2);
	tcase_add_test(tc, test_hook_error_reported);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_compress);
	tcase_add_test(tc, test_min_hole);
	tcase_add_loop_test(tc, test_compress_cut_is_not_whole, 0, 2);
	tcase_add_loop_test(tc, test_compress_paces, 0, 2);
	tcase_add_loop_test(tc, test_compress_judges_data_not_zeros, 0, 2);
	tcase_add_loop_test(tc, test_packed_tells_the_ledger, 0, 3);
	tcase_add_test(tc, test_probe_counts_data_not_holes);
	tcase_add_loop_test(tc, test_silence_ends_the_copy, 0, 4);
	tcase_add_loop_test(tc, test_reads_ahead_once_stored, 0, 3);
	tcase_add_loop_test(tc, test_stored_writes_end_on_the_grid, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
