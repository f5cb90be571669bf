/*
 * rescue.c: what a debugger needs of a core that will be cut short, had before it is: every thread's stack and what
 * finds the modules, the pieces a minimal core keeps (coreplan.c), read from the crashed process's memory as it
 * begins to dump, while it still has that memory. A dump the kernel stops (the process killed while it dumps: a
 * unit's stop timeout, a pod's grace period, the OOM killer) or one a limit cuts (KeepFree, MaxUse, MaxCoreSize,
 * RLIMIT_CORE) loses its end, and the stacks lie near the top of the address space, which the kernel dumps last. So
 * a core that ends before the extent its program headers announce gets those pieces after the bytes that arrived,
 * and program headers that say what the file now holds: each segment that arrived whole as it was, a segment the
 * cut went through as far as it arrived, the rescued pieces as segments of their own, nothing else (memory gdb
 * reports it cannot read, not zeros). The new headers go at the end and the ELF header points at them. The bytes
 * are the process's own; every offset from the core is checked (coreplan.c), the rest is this file's arithmetic.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "coreplan.h"
#include "rescue.h"

static uint64_t page_up(uint64_t n)
{
	return (n + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1);
}

void rescue_free(struct rescue *r)
{
	free(r->pieces);
	free(r->prefix);
	fd_close(&r->store);
	*r = (struct rescue) { .store = -1 };
}

/*
 * How many of the core's first bytes the rescue needs: its headers and notes (coreplan.c). 0 with *need when len
 * holds them, 1 with *need when more must be read, or -errno when none can be planned.
 */
int rescue_need(const unsigned char *head, size_t len, uint64_t *need)
{
	return coreplan_need(head, len, need);
}

/* The stack bound per thread that keeps all of them within RESCUE_MAX: stack_max, or less for many threads. */
static uint64_t stack_bound(unsigned threads, uint64_t stack_max)
{
	uint64_t each = threads ? RESCUE_MAX / threads : stack_max;

	each &= ~(uint64_t)(PAGE_BYTES - 1);
	if (each < PAGE_BYTES)
		each = PAGE_BYTES;
	return each < stack_max ? each : stack_max;
}

static bool kept(const struct mc_piece *x)
{
	return x->kind != PIECE_DROP && x->len > 0;
}

/* The kept pieces of plan p into r. 0 or -ENOMEM. */
static int take_pieces(const struct coreplan *p, struct rescue *r)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_pieces; i++)
		n += kept(&p->pieces[i]);
	if (n == 0)
		return 0;
	r->pieces = calloc(n, sizeof(*r->pieces));
	if (!r->pieces)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_pieces && r->n < n; i++) {
		const struct mc_piece *x = &p->pieces[i];

		if (!kept(x))
			continue;
		r->pieces[r->n++] = (struct rescue_piece) { .in_off = x->in_off, .len = x->len, .vaddr = x->vaddr,
							    .planned = x->len };
		r->bytes += x->len;
	}
	return 0;
}

/*
 * The plan: from the core's headers and notes (head, len: all of them) and the module list in the process's memory
 * (mem: /proc/PID/mem), the pieces a minimal core keeps, each thread's stack bounded by stack_max (less where the
 * threads together would pass RESCUE_MAX: r->stack_each says). 0 or -errno (no plan: the core is kept as it comes).
 */
int rescue_plan(const unsigned char *head, size_t len, int mem, uint64_t stack_max, struct rescue *r)
{
	struct core_notes *n = calloc(1, sizeof(*n));
	struct linkmap *lm = calloc(1, sizeof(*lm));
	struct coreplan p = { 0 };
	int e = n && lm ? coreplan_notes(head, len, n) : -ENOMEM;

	*r = (struct rescue) { .store = -1 };
	if (e == 0) {
		r->threads = n->threads;
		r->stack_each = stack_bound(n->threads, stack_max);
		/* Without the module list, the plan keeps what the notes name: the stacks, the files' first pages. */
		(void) linkmap_walk(&n->exe, linkmap_read_fd, &mem, lm);
		e = coreplan_build(head, len, n, lm, r->stack_each, &p);
	}
	if (e == 0)
		e = take_pieces(&p, r);
	if (e == 0) {
		r->prefix = p.prefix;
		r->prefix_len = p.prefix_len;
		p.prefix = NULL;
	}
	r->stacks_cut = p.stacks_cut;
	coreplan_free(&p);
	if (n)
		core_notes_free(n);
	free(n);
	free(lm);
	if (e < 0)
		rescue_free(r);
	return e;
}

/*
 * Reads the planned pieces from the process's memory (mem: /proc/PID/mem, checked against the pidfd) into store (a
 * memfd of the caller's), piece after piece. A piece the process no longer has (unmapped, a guard page) is left
 * out. 0, or -errno where store could not take them.
 */
int rescue_read(struct rescue *r, int mem, int store)
{
	char *buf = malloc(1u << 20);
	uint64_t at = 0;
	int e = buf ? 0 : -ENOMEM;

	for (size_t i = 0; e == 0 && i < r->n; i++) {
		struct rescue_piece *x = &r->pieces[i];

		x->store_off = at;
		for (uint64_t done = 0; e == 0 && done < x->len;) {
			size_t want = x->len - done < (1u << 20) ? (size_t)(x->len - done) : 1u << 20;
			ssize_t got = io_pread_full(mem, buf, want, (off_t)(x->vaddr + done));

			if (got <= 0) {
				x->len = done;
				break;
			}
			e = io_write_full(store, buf, (size_t)got);
			done += (uint64_t)got;
			if ((size_t)got < want)
				x->len = done;
		}
		at += x->len;
	}
	free(buf);
	r->store = e == 0 ? store : -1;
	r->read = at;
	return e;
}

/* The ELF header and the program headers of the core's head, checked as coreplan.c checks them. 0 or -EBADMSG. */
static int headers(const unsigned char *head, size_t len, Elf64_Ehdr *eh, const unsigned char **ph)
{
	if (len < sizeof(*eh))
		return -EBADMSG;
	memcpy(eh, head, sizeof(*eh));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_type != ET_CORE ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || eh->e_phnum >= PN_XNUM ||
	    eh->e_phoff > len || (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > len - eh->e_phoff)
		return -EBADMSG;
	*ph = head + eh->e_phoff;
	return 0;
}

/* One program header of the new table, appended to out at *off. 0 or -errno. */
static int put_phdr(int out, uint64_t *off, const Elf64_Phdr *p)
{
	ssize_t w = pwrite(out, p, sizeof(*p), (off_t)*off);

	if (w != (ssize_t)sizeof(*p))
		return w < 0 ? -errno : -EIO;
	*off += sizeof(*p);
	return 0;
}

/* The flags of the original segment that holds vaddr (PF_R where none does). */
static uint32_t flags_at(const unsigned char *ph, unsigned n, uint64_t vaddr)
{
	for (unsigned i = 0; i < n; i++) {
		Elf64_Phdr p;

		memcpy(&p, ph + i * sizeof(p), sizeof(p));
		if (p.p_type == PT_LOAD && vaddr >= p.p_vaddr && vaddr - p.p_vaddr < p.p_memsz)
			return p.p_flags;
	}
	return PF_R;
}

/* Copies len bytes of store at from to out at to, in the kernel. 0 or -errno. */
static int copy_piece(int out, int store, uint64_t from, uint64_t to, uint64_t len)
{
	if (lseek(out, (off_t)to, SEEK_SET) < 0)
		return -errno;
	return io_sendfile_range(out, store, (off_t)from, (off_t)(from + len));
}

/* The core's headers and notes as far as the cut lost them: written again from the head, at their offsets. */
static int restore_head(int out, uint64_t cut, const unsigned char *head, size_t len)
{
	ssize_t w;

	if (cut >= len)
		return 0;
	w = pwrite(out, head + cut, len - cut, (off_t)cut);
	return w == (ssize_t)(len - cut) ? 0 : w < 0 ? -errno : -EIO;
}

/*
 * Appends the rescued pieces past the cut (or their part past it) to out from *at, page-aligned, each a segment of
 * its own in added (room for r->n): how many into *n. 0 or -errno.
 */
static int append_pieces(int out, uint64_t cut, const struct rescue *r, const unsigned char *ph, unsigned phnum,
			 Elf64_Phdr *added, unsigned *n, uint64_t *at)
{
	int e = 0;

	*n = 0;
	for (size_t i = 0; e == 0 && i < r->n; i++) {
		const struct rescue_piece *x = &r->pieces[i];
		uint64_t skip = x->in_off < cut ? cut - x->in_off : 0, len = x->len > skip ? x->len - skip : 0;

		if (len == 0)
			continue;
		e = copy_piece(out, r->store, x->store_off + skip, *at, len);
		added[(*n)++] = (Elf64_Phdr) { .p_type = PT_LOAD, .p_flags = flags_at(ph, phnum, x->vaddr + skip),
					       .p_offset = *at, .p_vaddr = x->vaddr + skip, .p_filesz = len,
					       .p_memsz = len, .p_align = PAGE_BYTES };
		*at = page_up(*at + len);
	}
	return e;
}

/*
 * The core's own program headers, each as far as the file holds it (a segment past the cut left out, one the cut
 * went through as far as it arrived: memory beyond it is not described, so gdb says it cannot read it), then the
 * added ones, written at *at; how many into *n. 0 or -errno.
 */
static int put_headers(int out, uint64_t cut, const unsigned char *ph, unsigned phnum, const Elf64_Phdr *added,
		       unsigned n_added, unsigned *n, uint64_t *at)
{
	int e = 0;

	*n = 0;
	for (unsigned i = 0; e == 0 && i < phnum; i++) {
		Elf64_Phdr p;

		memcpy(&p, ph + i * sizeof(p), sizeof(p));
		if (p.p_type == PT_LOAD && p.p_filesz > 0 && p.p_offset >= cut)
			continue;
		if (p.p_type == PT_LOAD && p.p_filesz > 0 && p.p_offset + p.p_filesz > cut)
			p.p_filesz = p.p_memsz = cut - p.p_offset;
		/* A segment with no bytes in the file (text the kernel left out) points nowhere past its end. */
		if (p.p_type == PT_LOAD && p.p_filesz == 0 && p.p_offset > cut)
			p.p_offset = cut;
		e = put_phdr(out, at, &p);
		*n += e == 0;
	}
	for (unsigned i = 0; e == 0 && i < n_added; i++) {
		e = put_phdr(out, at, &added[i]);
		*n += e == 0;
	}
	return e;
}

/*
 * What rescue_apply() makes of a file cut at cut, at most: the bytes kept, the pieces past them each from a page
 * boundary, and a program header table that holds every original header and every piece.
 */
static uint64_t extent_at(uint64_t cut, size_t len, unsigned phnum, const struct rescue *r)
{
	uint64_t at = page_up(cut > len ? cut : len);

	for (size_t i = 0; i < r->n; i++) {
		const struct rescue_piece *x = &r->pieces[i];
		uint64_t from = cut > len ? cut : len, skip = x->in_off < from ? from - x->in_off : 0;

		if (x->len > skip)
			at = page_up(at + x->len - skip);
	}
	return at + ((uint64_t)phnum + r->n) * sizeof(Elf64_Phdr);
}

/*
 * Where a core must be cut for it and the pieces to fit in limit bytes (a limit's: RLIMIT_CORE, MaxCoreSize, or
 * what KeepFree and MaxUse let it have): the largest page boundary after its headers and notes (head, len) that
 * does, into *cut. 0, or -ENOSPC where even the headers and the pieces alone are more.
 */
int rescue_fit(uint64_t limit, const unsigned char *head, size_t len, const struct rescue *r, uint64_t *cut)
{
	const unsigned char *ph;
	Elf64_Ehdr eh;
	uint64_t lo = page_up(len), hi = limit & ~(uint64_t)(PAGE_BYTES - 1);

	if (headers(head, len, &eh, &ph) < 0)
		return -EBADMSG;
	if (lo > hi || extent_at(lo, len, eh.e_phnum, r) > limit)
		return -ENOSPC;
	/* extent_at() grows with the cut (a page more kept is at most a page less appended): bisect for the last. */
	while (lo < hi) {
		uint64_t mid = (lo + (hi - lo) / 2 + PAGE_BYTES) & ~(uint64_t)(PAGE_BYTES - 1);

		if (mid > hi)
			mid = hi;
		if (extent_at(mid, len, eh.e_phnum, r) <= limit)
			lo = mid;
		else
			hi = mid - PAGE_BYTES;
	}
	*cut = lo;
	return 0;
}

/*
 * The file out holds the core's first cut bytes (head: its headers and notes, len bytes): the rescued pieces past
 * the cut go after them, then the new program headers, and the ELF header is rewritten to point at those. The
 * file's size into *size. 0, or -errno (the pieces may be there without the headers: then it is as cut as before).
 */
int rescue_apply(int out, uint64_t cut, const unsigned char *head, size_t len, const struct rescue *r, uint64_t *size)
{
	const unsigned char *ph = NULL;
	Elf64_Ehdr eh;
	Elf64_Phdr *added = NULL;
	uint64_t at = (cut > len ? cut : len), phoff;
	unsigned n_added = 0, n = 0;
	int e = r->store < 0 ? -EBADF : headers(head, len, &eh, &ph);

	at = page_up(at);
	if (e == 0 && (uint64_t)eh.e_phnum + r->n >= PN_XNUM)
		e = -E2BIG;
	if (e == 0 && !(added = calloc(r->n ? r->n : 1, sizeof(*added))))
		e = -ENOMEM;
	if (e == 0)
		e = restore_head(out, cut, head, len);
	if (e == 0)
		e = append_pieces(out, cut > len ? cut : len, r, ph, eh.e_phnum, added, &n_added, &at);
	phoff = at;
	if (e == 0)
		e = put_headers(out, cut > len ? cut : len, ph, eh.e_phnum, added, n_added, &n, &at);
	if (e == 0) {
		eh.e_phoff = phoff;
		eh.e_phnum = (Elf64_Half)n;
		e = pwrite(out, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) ? 0 : -EIO;
	}
	free(added);
	*size = at;
	return e;
}

/*
 * The minimal core the pieces make (as Core=minimal would have stored it: coreplan.c's headers and notes, then every
 * kept piece in order) into out, an empty file: what a stack trace reads where the stored core is compressed. A
 * piece the process had less of leaves zeros. Its size into *size. 0 or -errno.
 */
int rescue_minimal(int out, const struct rescue *r, uint64_t *size)
{
	uint64_t at = r->prefix_len;
	int e = r->store < 0 || !r->prefix ? -EBADF : 0;

	if (e == 0 && pwrite(out, r->prefix, r->prefix_len, 0) != (ssize_t)r->prefix_len)
		e = -EIO;
	for (size_t i = 0; e == 0 && i < r->n; i++) {
		const struct rescue_piece *x = &r->pieces[i];

		e = x->len > 0 ? copy_piece(out, r->store, x->store_off, at, x->len) : 0;
		at += x->planned;
	}
	if (e == 0 && ftruncate(out, (off_t)at) < 0)
		e = -errno;
	*size = at;
	return e;
}
