/*
 * coreplan.c: the plan of a minimal core. The kernel writes an ELF core as its header, the program headers (PT_NOTE,
 * then one PT_LOAD per mapping, by address), the notes, then each mapping's dumped bytes in the same order. So the
 * headers and notes decide, before any memory arrives, what of it is kept:
 * - each thread's stack, from its stack pointer (less the red zone) to the top of its mapping, up to a bound: what
 *   every unwinder reads;
 * - what the kernel dumped of the files' own mappings (NT_FILE): the first page of each ELF file, which holds its
 *   build-id, and the data and relocated pages: where gdb and elfutils find the dynamic section and r_debug;
 * - the vDSO, a module of its own that the kernel gives no file for;
 * - of any other page, only the bytes of the module list (linkmap.c), the rest of the page zeroed.
 * Every mapping keeps its program header: a dropped one, or a dropped part, has p_filesz 0, which gdb shows as
 * memory it cannot read rather than as zeros. The bytes come from a possibly hostile process and the kernel: every
 * offset is checked; anything out of place is -EBADMSG, and the caller keeps the whole core.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <sys/user.h>

#include "base.h"
#include "coreplan.h"

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

/* Below the stack pointer the ABI lets a function keep data without moving it (x86-64's red zone). */
#define RED_ZONE 128
#define PHNUM_OUT_MAX (PN_XNUM - 1)
#define HEAD_OFFSET_MAX (1ULL << 32)

/*
 * The thread pointer: on x86-64 it points at glibc's struct pthread (the TCB at the top of the thread's TLS), which
 * libthread_db reads to name a thread and to walk the thread list; 2304 bytes in glibc 2.36, with room to grow. On
 * arm64 the TCB lies below it, and is not kept (the threads are then named by LWP only).
 */
#define TCB_BYTES 3072

#if defined(__x86_64__)
#define CORE_MACHINE EM_X86_64
#define STACK_POINTER(r) ((r)->rsp)
#define THREAD_POINTER(r) ((r)->fs_base)
#elif defined(__aarch64__)
#define CORE_MACHINE EM_AARCH64
#define STACK_POINTER(r) ((r)->sp)
#define THREAD_POINTER(r) (0 * (r)->sp)
#endif

static uint64_t page_down(uint64_t a)
{
	return a & ~(uint64_t)(PAGE_BYTES - 1);
}

static uint64_t page_up(uint64_t a)
{
	return page_down(a + PAGE_BYTES - 1);
}

static bool within(uint64_t off, uint64_t n, uint64_t len)
{
	return off <= len && n <= len - off;
}

/* The ELF header, checked to be a core of this machine this plan can make minimal. */
static int header(const unsigned char *h, size_t len, Elf64_Ehdr *e)
{
	if (len < sizeof(*e))
		return -EAGAIN;
	memcpy(e, h, sizeof(*e));
	if (memcmp(e->e_ident, ELFMAG, SELFMAG) != 0 || e->e_type != ET_CORE)
		return -EBADMSG;
#ifdef CORE_MACHINE
	if (e->e_ident[EI_CLASS] != ELFCLASS64 || e->e_machine != CORE_MACHINE ||
	    e->e_ident[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB))
		return -EPROTONOSUPPORT;
#else
	return -EPROTONOSUPPORT;
#endif
	/* The kernel puts the headers right after the ELF header; far beyond is no core of its. */
	if (e->e_phentsize != sizeof(Elf64_Phdr) || e->e_phnum == 0 || e->e_phnum >= PN_XNUM ||
	    e->e_phoff < sizeof(*e) || e->e_phoff > HEAD_OFFSET_MAX)
		return -EBADMSG;
	return 0;
}

static const Elf64_Phdr *note_header(const unsigned char *h, const Elf64_Ehdr *e, Elf64_Phdr *ph)
{
	for (unsigned i = 0; i < e->e_phnum; i++) {
		memcpy(ph, h + e->e_phoff + i * sizeof(*ph), sizeof(*ph));
		if (ph->p_type == PT_NOTE)
			return ph;
	}
	return NULL;
}

/*
 * How many of the core's first bytes the plan needs: its headers and notes. 0 with *need when len holds them, 1
 * with *need when more must be read, or -errno when no plan can be made (not a core this plan knows).
 */
int coreplan_need(const unsigned char *h, size_t len, uint64_t *need)
{
	Elf64_Ehdr e;
	Elf64_Phdr note;
	int r = header(h, len, &e);

	*need = sizeof(e);
	if (r == -EAGAIN)
		return 1;
	if (r < 0)
		return r;
	*need = e.e_phoff + (uint64_t)e.e_phnum * sizeof(Elf64_Phdr);
	if (len < *need)
		return 1;
	if (!note_header(h, &e, &note))
		return -EBADMSG;
	if (note.p_offset < *need || note.p_offset > HEAD_OFFSET_MAX || note.p_filesz > UINT32_MAX)
		return -EBADMSG;
	*need = note.p_offset + note.p_filesz;
	return len < *need ? 1 : 0;
}

static uint32_t u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void note_prstatus(const unsigned char *d, uint32_t size, struct core_notes *n)
{
	prstatus_t ps;

	if (size < sizeof(ps) || n->threads >= COREPLAN_THREADS_MAX)
		return;
	memcpy(&ps, d, sizeof(ps));
#ifdef CORE_MACHINE
	const struct user_regs_struct *regs = (const void *)&ps.pr_reg;

	n->tp[n->threads] = THREAD_POINTER(regs);
	n->sp[n->threads++] = STACK_POINTER(regs);
#endif
}

static void note_auxv(const unsigned char *d, uint32_t size, struct core_notes *n)
{
	for (uint32_t off = 0; off + 16 <= size; off += 16) {
		uint64_t kv[2];

		memcpy(kv, d + off, sizeof(kv));
		if (kv[0] == AT_PHDR)
			n->exe.phdr = kv[1];
		else if (kv[0] == AT_PHNUM)
			n->exe.phnum = kv[1];
		else if (kv[0] == AT_SYSINFO_EHDR)
			n->vdso = kv[1];
	}
}

/* NT_FILE: a count, the page size, then count (start, end, offset) triples, then the names (not needed here). */
static void note_files(const unsigned char *d, uint32_t size, struct core_notes *n)
{
	uint64_t count;

	if (size < 16 || n->files)
		return;
	memcpy(&count, d, sizeof(count));
	if (count > COREPLAN_FILES_MAX || count > (size - 16) / 24)
		return;
	n->files = calloc(count ? count : 1, sizeof(*n->files));
	if (!n->files)
		return;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t t[2];

		memcpy(t, d + 16 + i * 24, sizeof(t));
		n->files[n->n_files++] = (struct span64) { t[0], t[1] };
	}
}

/*
 * Reads the notes the plan needs from the first len bytes (coreplan_need() said enough). 0, or -EBADMSG with
 * nothing held.
 */
int coreplan_notes(const unsigned char *h, size_t len, struct core_notes *n)
{
	Elf64_Ehdr e;
	Elf64_Phdr note;
	uint64_t off, end;

	memset(n, 0, sizeof(*n));
	if (header(h, len, &e) < 0 || !note_header(h, &e, &note) || !within(note.p_offset, note.p_filesz, len))
		return -EBADMSG;
	end = note.p_offset + note.p_filesz;
	for (off = note.p_offset; off + 12 <= end;) {
		uint32_t namesz = u32(h + off), descsz = u32(h + off + 4), type = u32(h + off + 8);
		uint64_t desc = off + 12 + ((namesz + 3ULL) & ~3ULL);
		bool core = namesz == sizeof("CORE") && memcmp(h + off + 12, "CORE", namesz) == 0;

		if (!within(desc, descsz, end))
			break;
		if (core && type == NT_PRSTATUS)
			note_prstatus(h + desc, descsz, n);
		else if (core && type == NT_AUXV)
			note_auxv(h + desc, descsz, n);
		else if (core && type == NT_FILE)
			note_files(h + desc, descsz, n);
		off = desc + ((descsz + 3ULL) & ~3ULL);
	}
	if (off + 12 <= end || n->threads == 0) {
		core_notes_free(n);
		return -EBADMSG;
	}
	return 0;
}

void core_notes_free(struct core_notes *n)
{
	free(n->files);
	n->files = NULL;
	n->n_files = 0;
}

/* A growing array of n elements of size sz: room for one more, or -ENOMEM. */
static int grow(void **v, size_t n, size_t *cap, size_t sz)
{
	void *p;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 64;
	p = realloc(*v, *cap * sz);
	if (!p)
		return -ENOMEM;
	*v = p;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct span64 *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorts v and merges what overlaps or touches: its new count. */
static size_t merge(struct span64 *v, size_t n)
{
	size_t k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), by_start);
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && v[i].start <= v[k - 1].end) {
			if (v[i].end > v[k - 1].end)
				v[k - 1].end = v[i].end;
			continue;
		}
		v[k++] = v[i];
	}
	return k;
}

/* The building state: the core's loads, what is kept of them, and the output as it grows. */
struct build {
	const Elf64_Phdr *loads;
	size_t n_loads;
	struct span64 *full, *maskp;    /* page runs kept whole, and kept masked */
	size_t n_full, n_maskp, cap_full;
	Elf64_Phdr *out;                /* the output's PT_LOAD headers */
	size_t n_out, cap_out, cap_pieces;
	struct coreplan *p;
};

static int add_full(struct build *b, uint64_t start, uint64_t end)
{
	if (end <= start)
		return 0;
	if (grow((void **)&b->full, b->n_full, &b->cap_full, sizeof(*b->full)) < 0)
		return -ENOMEM;
	b->full[b->n_full++] = (struct span64) { start, end };
	return 0;
}

/* The load holding addr, or NULL: a binary search, as the loads come by address (read_loads() checked). */
static const Elf64_Phdr *load_at(const struct build *b, uint64_t addr)
{
	size_t lo = 0, hi = b->n_loads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const Elf64_Phdr *ph = &b->loads[mid];

		if (addr < ph->p_vaddr)
			hi = mid;
		else if (addr - ph->p_vaddr >= ph->p_memsz)
			lo = mid + 1;
		else
			return ph;
	}
	return NULL;
}

/* Each thread's stack: from its stack pointer less the red zone, page aligned, to its mapping's top or the bound. */
static int keep_stacks(struct build *b, const struct core_notes *n, uint64_t stack_max)
{
	for (unsigned t = 0; t < n->threads; t++) {
		const Elf64_Phdr *ph = load_at(b, n->sp[t]);
		uint64_t start, end, top;

		if (!ph)
			continue;
		top = ph->p_vaddr + ph->p_filesz;
		start = page_down(n->sp[t] - ph->p_vaddr >= RED_ZONE ? n->sp[t] - RED_ZONE : ph->p_vaddr);
		end = top - start > stack_max ? start + page_up(stack_max) : top;
		if (start >= top)
			continue;
		b->p->threads++;
		b->p->stacks_cut += end < top;
		b->p->stack_bytes += end - start;
		if (add_full(b, start, end) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * The files' own dumped pages, and the vDSO. The loads and NT_FILE's ranges are both walked by address, once: a
 * process may have tens of thousands of mappings.
 */
static int keep_files(struct build *b, struct core_notes *n)
{
	size_t f = 0;

	n->n_files = merge(n->files, n->n_files);
	for (size_t i = 0; i < b->n_loads; i++) {
		const Elf64_Phdr *ph = &b->loads[i];
		bool vdso = n->vdso && ph->p_vaddr <= n->vdso && n->vdso - ph->p_vaddr < ph->p_memsz;

		while (f < n->n_files && n->files[f].end <= ph->p_vaddr)
			f++;
		if (ph->p_filesz == 0 || !(vdso || (f < n->n_files && n->files[f].start < ph->p_vaddr + ph->p_memsz)))
			continue;
		b->p->file_bytes += ph->p_filesz;
		if (add_full(b, ph->p_vaddr, ph->p_vaddr + ph->p_filesz) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The module list's bytes and each thread's TCB (merged into p->masks), and the pages that hold them. */
static int keep_masked(struct build *b, const struct core_notes *n, const struct linkmap *lm)
{
	struct coreplan *p = b->p;
	size_t k = lm ? lm->n : 0;

	p->masks = malloc((k + n->threads + 1) * sizeof(*p->masks));
	b->maskp = malloc((k + n->threads + 1) * sizeof(*b->maskp));
	if (!p->masks || !b->maskp)
		return -ENOMEM;
	if (k)
		memcpy(p->masks, lm->spans, k * sizeof(*p->masks));
	for (unsigned t = 0; t < n->threads; t++)
		if (n->tp[t] && n->tp[t] + TCB_BYTES > n->tp[t])
			p->masks[k++] = (struct span64) { n->tp[t], n->tp[t] + TCB_BYTES };
	p->n_masks = merge(p->masks, k);
	for (size_t i = 0; i < p->n_masks; i++) {
		p->linkmap_bytes += p->masks[i].end - p->masks[i].start;
		b->maskp[i] = (struct span64) { page_down(p->masks[i].start), page_up(p->masks[i].end) };
	}
	b->n_maskp = merge(b->maskp, p->n_masks);
	return 0;
}

/* In sorted runs v, the one holding a, or the first after it: its index (n when none). */
static size_t find_run(const struct span64 *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What becomes of the memory at a, up to at most end: kept, masked or dropped, and where that run ends. */
static enum piece_kind classify(const struct build *b, uint64_t a, uint64_t end, uint64_t *run_end)
{
	/* A table is NULL while empty, its count 0 (said again for clang's analyzer, which does not tie the two). */
	const size_t n_full = b->full ? b->n_full : 0, n_maskp = b->maskp ? b->n_maskp : 0;
	size_t f = find_run(b->full, n_full, a), m = find_run(b->maskp, n_maskp, a);
	uint64_t next_full = f < n_full ? b->full[f].start : end;

	if (f < n_full && b->full[f].start <= a) {
		*run_end = b->full[f].end < end ? b->full[f].end : end;
		return PIECE_KEEP;
	}
	if (next_full > end)
		next_full = end;
	if (m < n_maskp && b->maskp[m].start <= a) {
		*run_end = b->maskp[m].end < next_full ? b->maskp[m].end : next_full;
		return PIECE_MASK;
	}
	*run_end = m < n_maskp && b->maskp[m].start < next_full ? b->maskp[m].start : next_full;
	return PIECE_DROP;
}

static int add_piece(struct build *b, uint64_t in_off, uint64_t len, uint64_t vaddr, enum piece_kind k)
{
	struct coreplan *p = b->p;

	if (len == 0)
		return 0;
	if (grow((void **)&p->pieces, p->n_pieces, &b->cap_pieces, sizeof(*p->pieces)) < 0)
		return -ENOMEM;
	p->pieces[p->n_pieces++] = (struct mc_piece) { in_off, len, vaddr, k };
	return 0;
}

/* One output header for [vaddr, vaddr + len) of the load ph: with its bytes (filesz len), or without. */
static int add_header(struct build *b, const Elf64_Phdr *ph, uint64_t vaddr, uint64_t len, bool bytes)
{
	if (len == 0)
		return 0;
	if (b->n_out >= PHNUM_OUT_MAX - 1)
		return -E2BIG;
	if (grow((void **)&b->out, b->n_out, &b->cap_out, sizeof(*b->out)) < 0)
		return -ENOMEM;
	b->out[b->n_out++] = (Elf64_Phdr) { .p_type = PT_LOAD, .p_flags = ph->p_flags, .p_vaddr = vaddr,
					    .p_filesz = bytes ? len : 0, .p_memsz = len, .p_align = PAGE_BYTES };
	return 0;
}

/* One load: its dumped bytes as runs, each a piece of input and an output header; its undumped rest, a header. */
static int plan_load(struct build *b, const Elf64_Phdr *ph)
{
	uint64_t a = ph->p_vaddr, end = ph->p_vaddr + ph->p_filesz, run_end;
	int r = 0;

	while (r == 0 && a < end) {
		enum piece_kind k = classify(b, a, end, &run_end);

		r = add_piece(b, ph->p_offset + (a - ph->p_vaddr), run_end - a, a, k);
		if (r == 0)
			r = add_header(b, ph, a, run_end - a, k != PIECE_DROP);
		a = run_end;
	}
	if (r == 0)
		r = add_header(b, ph, end, ph->p_memsz - ph->p_filesz, false);
	return r;
}

/* The core's PT_LOAD headers, checked to come in the order the kernel writes them. */
static int read_loads(const unsigned char *h, const Elf64_Ehdr *e, uint64_t head_end, Elf64_Phdr **loads,
		      size_t *n)
{
	uint64_t next_off = head_end, next_addr = 0;

	*loads = calloc(e->e_phnum, sizeof(**loads));
	if (!*loads)
		return -ENOMEM;
	*n = 0;
	for (unsigned i = 0; i < e->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, h + e->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_filesz > ph.p_memsz || ph.p_offset < next_off || ph.p_vaddr < next_addr ||
		    ph.p_vaddr % PAGE_BYTES || ph.p_filesz % PAGE_BYTES || ph.p_offset + ph.p_filesz < ph.p_offset ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			return -EBADMSG;
		next_off = ph.p_offset + ph.p_filesz;
		next_addr = ph.p_vaddr + ph.p_memsz;
		(*loads)[(*n)++] = ph;
	}
	return 0;
}

/* The output's first bytes: the header, PT_NOTE and the loads' headers with their offsets, the notes, padding. */
static int make_prefix(struct build *b, const unsigned char *h, const Elf64_Ehdr *e, const Elf64_Phdr *note)
{
	uint64_t headers = sizeof(Elf64_Ehdr) + (b->n_out + 1) * sizeof(Elf64_Phdr);
	uint64_t data = page_up(headers + note->p_filesz), off = data;
	Elf64_Ehdr eh = *e;
	Elf64_Phdr nh = *note;
	unsigned char *p = calloc(1, data);

	if (!p)
		return -ENOMEM;
	eh.e_phoff = sizeof(Elf64_Ehdr);
	eh.e_phnum = (Elf64_Half)(b->n_out + 1);
	eh.e_shoff = 0;
	eh.e_shnum = eh.e_shstrndx = 0;
	nh.p_offset = headers;
	memcpy(p, &eh, sizeof(eh));
	memcpy(p + sizeof(eh), &nh, sizeof(nh));
	for (size_t i = 0; i < b->n_out; i++) {
		b->out[i].p_offset = off;
		off += b->out[i].p_filesz;
		memcpy(p + sizeof(eh) + (i + 1) * sizeof(nh), &b->out[i], sizeof(nh));
	}
	memcpy(p + headers, h + note->p_offset, note->p_filesz);
	b->p->prefix = p;
	b->p->prefix_len = data;
	return 0;
}

/*
 * The plan for the core whose first len bytes are h (its headers and notes: coreplan_need() said so), with notes n
 * (whose file ranges it sorts) and the module list's bytes lm (NULL for none). 0, or -errno with p freed: the core is then kept whole.
 */
int coreplan_build(const unsigned char *h, size_t len, struct core_notes *n, const struct linkmap *lm,
		   uint64_t stack_max, struct coreplan *p)
{
	struct build b = { .p = p };
	Elf64_Phdr *loads = NULL, note;
	Elf64_Ehdr e;
	uint64_t need;
	int r = coreplan_need(h, len, &need);

	memset(p, 0, sizeof(*p));
	if (r != 0)
		return r < 0 ? r : -EBADMSG;
	(void) header(h, len, &e);
	(void) note_header(h, &e, &note);
	p->head_end = need;
	r = read_loads(h, &e, need, &loads, &b.n_loads);
	b.loads = loads;
	if (r == 0)
		r = keep_stacks(&b, n, stack_max);
	if (r == 0)
		r = keep_files(&b, n);
	if (r == 0)
		r = keep_masked(&b, n, lm);
	b.n_full = merge(b.full, b.n_full);
	for (size_t i = 0, pos = need; r == 0 && i < b.n_loads; pos = loads[i].p_offset + loads[i].p_filesz, i++) {
		/* The padding between the notes and the first load's bytes, or any gap the kernel left. */
		r = add_piece(&b, pos, loads[i].p_offset - pos, 0, PIECE_DROP);
		if (r == 0)
			r = plan_load(&b, &loads[i]);
	}
	if (r == 0)
		r = make_prefix(&b, h, &e, &note);
	free(loads);
	free(b.full);
	free(b.maskp);
	free(b.out);
	if (r < 0)
		coreplan_free(p);
	return r;
}

void coreplan_free(struct coreplan *p)
{
	free(p->prefix);
	free(p->pieces);
	free(p->masks);
	memset(p, 0, sizeof(*p));
}
