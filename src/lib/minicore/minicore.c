/*
 * minicore.c: a minimal core, made as the core streams in (coreplan.c decides what of it is kept). The engine reads
 * the minimal core from here as it would read the kernel's pipe: the headers and notes first, then the kept bytes.
 * What is not kept is read from the kernel and dropped (spliced to /dev/null where the input is a pipe): it is never
 * written anywhere. Where no plan can be made (not a core of this machine, headers out of place, no memory for the
 * plan), the core passes whole and the stats say why: a minimal core is never worth losing the crash for.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "coreplan.h"
#include "minicore.h"

#define SCRATCH_BYTES (256 * 1024)
#define SPLICE_MAX (1U << 30)

/* The plan's state, kept beside the reader's: minicore.h stays free of the plan's types. */
struct mc_state {
	struct coreplan plan;
	struct core_notes notes;
};

void minicore_init(struct minicore *m, int in, int memfd, uint64_t stack_max)
{
	*m = (struct minicore) { .in = in, .memfd = memfd, .stack_max = stack_max, .devnull = -1 };
}

/* Reads the input as io_read_full() does; bounded by silence_ms where it is set (m->silent says it ended so). */
static ssize_t take(struct minicore *m, void *buf, size_t len, unsigned long *calls)
{
	if (m->silence_ms > 0)
		return io_read_full_within(m->in, buf, len, m->silence_ms, calls, &m->silent);
	return io_read_full(m->in, buf, len, calls);
}

/* Reads the core's headers and notes into m->head. 0, or -errno (the bytes read so far are kept). */
static int read_head(struct minicore *m, unsigned long *calls)
{
	size_t cap = 0;
	uint64_t need = 0;
	int r;

	while ((r = coreplan_need(m->head, m->head_len, &need)) == 1) {
		ssize_t got;

		if (need > MINICORE_HEAD_MAX)
			return -EFBIG;
		if (need > cap) {
			unsigned char *p = realloc(m->head, need);

			if (!p)
				return -ENOMEM;
			m->head = p;
			cap = need;
		}
		got = take(m, m->head + m->head_len, need - m->head_len, calls);
		if (got < 0)
			return (int)got;
		m->head_len += (size_t)got;
		m->st.input += (uint64_t)got;
		if (m->head_len < need)
			return -ENODATA;
	}
	return r;
}

static const char *why_whole(int r)
{
	switch (r) {
	case -EPROTONOSUPPORT: return "not a core of this machine's architecture";
	case -EFBIG: return "its notes are larger than 64 MiB";
	case -ENOMEM: return "out of memory for the plan";
	case -E2BIG: return "it would need more than 65534 program headers";
	case -ENODATA: return "the core ended inside its notes";
	default: return "its headers are not those of a Linux core";
	}
}

/* Where no plan could be made: what was read so far goes out as it came, and the rest of the core after it. */
static void pass_whole(struct minicore *m, int r)
{
	m->st.minimal = false;
	m->st.why = why_whole(r);
	m->prefix = m->head;
	m->prefix_len = m->head_len;
	m->head = NULL;
	free(m->pieces);
	m->pieces = calloc(1, sizeof(*m->pieces));
	m->n_pieces = m->pieces ? 1 : 0;
	if (m->pieces)
		m->pieces[0] = (struct mc_piece) { m->head_len, UINT64_MAX, 0, PIECE_KEEP };
}

/* Reads the headers and notes, finds the module list, and makes the plan; or decides to keep the core whole. */
static void plan(struct minicore *m, unsigned long *calls)
{
	struct mc_state *s = calloc(1, sizeof(*s));
	struct linkmap *lm = calloc(1, sizeof(*lm));
	int r = s && lm ? read_head(m, calls) : -ENOMEM;

	if (r == 0)
		r = coreplan_notes(m->head, m->head_len, &s->notes);
	if (r == 0 && m->memfd >= 0)
		m->st.linkmap_error = linkmap_walk(&s->notes.exe, linkmap_read_fd, &m->memfd, lm);
	else if (r == 0)
		m->st.linkmap_error = -ENOENT;
	m->st.modules = lm ? lm->modules : 0;
	if (r == 0)
		r = coreplan_build(m->head, m->head_len, &s->notes, lm, m->stack_max, &s->plan);
	if (r == 0) {
		m->st = (struct minicore_stats) { .minimal = true, .threads = s->plan.threads,
			.stacks_cut = s->plan.stacks_cut, .modules = m->st.modules, .linkmap_error = m->st.linkmap_error,
			.stack_bytes = s->plan.stack_bytes, .file_bytes = s->plan.file_bytes,
			.linkmap_bytes = s->plan.linkmap_bytes, .input = m->st.input };
		m->prefix = s->plan.prefix, m->prefix_len = s->plan.prefix_len;
		m->pieces = s->plan.pieces, m->n_pieces = s->plan.n_pieces;
		m->masks = s->plan.masks, m->n_masks = s->plan.n_masks;
	} else {
		pass_whole(m, r);
	}
	if (s)
		core_notes_free(&s->notes);
	free(s);
	free(lm);
	m->planned = true;
}

/* Reads and drops up to len bytes of the input: the count dropped, fewer at its end, or -errno. */
static ssize_t drop(struct minicore *m, uint64_t len)
{
	uint64_t done = 0;

	if (m->devnull < 0 && !m->scratch)
		m->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	while (done < len) {
		size_t want = len - done < SPLICE_MAX ? (size_t)(len - done) : SPLICE_MAX;
		ssize_t r = m->devnull >= 0 ? io_splice(m->in, m->devnull, want, SPLICE_F_MOVE) : -EINVAL;

		/* splice needs a pipe on one side: a socket's core (socket mode) is read through a buffer. */
		if (r == -EINVAL && m->devnull >= 0) {
			fd_close(&m->devnull);
		}
		if (r == -EINVAL && !m->scratch && !(m->scratch = malloc(SCRATCH_BYTES)))
			return -ENOMEM;
		if (r == -EINVAL)
			r = take(m, m->scratch, want < SCRATCH_BYTES ? want : SCRATCH_BYTES, NULL);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		done += (uint64_t)r;
		m->st.input += (uint64_t)r;
	}
	return (ssize_t)done;
}

/* Zeroes the bytes of buf, memory at [va, va + n), that are not the module list's. */
static void mask(const struct minicore *m, unsigned char *buf, uint64_t va, size_t n)
{
	uint64_t cur = va, end = va + n;

	for (size_t i = 0; i < m->n_masks && cur < end; i++) {
		const struct span64 *s = &m->masks[i];

		if (s->end <= cur)
			continue;
		if (s->start >= end)
			break;
		if (s->start > cur)
			memset(buf + (cur - va), 0, s->start - cur);
		cur = s->end < end ? s->end : end;
	}
	if (cur < end)
		memset(buf + (cur - va), 0, end - cur);
}

/* Copies what is left of the prefix into buf: the count. */
static size_t take_prefix(struct minicore *m, unsigned char *buf, size_t n)
{
	size_t k = m->prefix_len - m->prefix_pos < n ? m->prefix_len - m->prefix_pos : n;

	memcpy(buf, m->prefix + m->prefix_pos, k);
	m->prefix_pos += k;
	return k;
}

/* Moves through the current piece into buf: bytes given (0 for a dropped piece), or -errno; *eof at the input's end. */
static ssize_t take_piece(struct minicore *m, unsigned char *buf, size_t n, bool *eof, unsigned long *calls)
{
	struct mc_piece *p = &m->pieces[m->cur];
	uint64_t left = p->len - m->cur_done;
	size_t want = left < n ? (size_t)left : n;
	ssize_t got;

	if (p->kind == PIECE_DROP) {
		got = drop(m, left);
		if (got >= 0 && (uint64_t)got < left)
			*eof = true;
	} else {
		got = take(m, buf, want, calls);
		if (got >= 0 && (size_t)got < want)
			*eof = true;
		if (got > 0)
			m->st.input += (uint64_t)got;
		if (got > 0 && p->kind == PIECE_MASK)
			mask(m, buf, p->vaddr + m->cur_done, (size_t)got);
	}
	if (got < 0)
		return got;
	m->cur_done += (uint64_t)got;
	if (m->cur_done == p->len) {
		m->cur++;
		m->cur_done = 0;
	}
	return p->kind == PIECE_DROP ? 0 : got;
}

/*
 * Reads up to n bytes of the minimal core into buf, as io_read_full() reads a pipe: n, fewer only at the end of the
 * core, or -errno. Past the last kept byte, the rest of the kernel's core is read and dropped first, so that the
 * kernel finishes its dump.
 */
ssize_t minicore_read(struct minicore *m, void *buf, size_t n, unsigned long *calls)
{
	unsigned char *b = buf;
	size_t done = 0;
	bool eof = false;

	if (!m->planned)
		plan(m, calls);
	while (done < n && !eof) {
		ssize_t got;

		if (m->prefix_pos < m->prefix_len) {
			done += take_prefix(m, b + done, n - done);
			continue;
		}
		if (m->cur >= m->n_pieces) {
			got = drop(m, UINT64_MAX);
			if (got < 0)
				return done > 0 ? (ssize_t)done : got;
			break;
		}
		got = take_piece(m, b + done, n - done, &eof, calls);
		if (got < 0)
			return done > 0 ? (ssize_t)done : got;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

void minicore_free(struct minicore *m)
{
	free(m->head);
	free(m->prefix);
	free(m->pieces);
	free(m->masks);
	free(m->scratch);
	fd_close(&m->devnull);
	m->head = m->prefix = NULL;
	m->pieces = NULL;
	m->masks = NULL;
	m->scratch = NULL;
	m->devnull = -1;
}
