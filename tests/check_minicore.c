/*
 * check_minicore.c: minimal cores on a core laid out as the kernel writes one: an executable's header page with an
 * undumped rest, a heap with a thread's TCB in it, a stack, the vDSO. The plan (coreplan.c) keeps the stack from
 * the stack pointer, the file's and the vDSO's pages, the TCB's bytes alone of the heap; the stream (minicore.c)
 * writes exactly those bytes under headers that say where they are. The module list is walked (linkmap.c) in a
 * fake memory, cycles and all. The same pieces rescued for a cut core (rescue.c): after the cut, or within a limit.
 * Real crashes: t-minimal (gdb's frames and the entry's trace, full against minimal), t-truncated (cut cores).
 */
#include <elf.h>
#include <sys/mman.h>
#include <sys/procfs.h>
#include <sys/user.h>

#include "base.h"
#include "minicore.h"
#include "minicore/coreplan.h"
#include "minicore/linkmap.h"
#include "unit.h"

#define PG 4096ULL
#define EXE 0x400000ULL
#define HEAP 0x600000ULL
#define STACK 0x7ff000000000ULL
#define VDSO 0x7ffff7fc0000ULL
#define NLOADS 4

static unsigned char core[64 * 1024];
static size_t core_len, data_off;
static Elf64_Phdr loads[NLOADS];

static size_t notes(unsigned char *p, uint64_t sp, uint64_t tp)
{
	prstatus_t ps = { 0 };
	struct user_regs_struct *r = (void *)&ps.pr_reg;
	uint64_t auxv[] = { AT_SYSINFO_EHDR, VDSO, AT_NULL, 0 };
	uint64_t files[] = { 1, PG, EXE, EXE + 2 * PG, 0 };
	unsigned char fdesc[sizeof(files) + 8] = { 0 };
	size_t n = 0;

	r->rsp = sp;
	r->fs_base = tp;
	memcpy(fdesc, files, sizeof(files));
	memcpy(fdesc + sizeof(files), "/bin/x", 7);
	n += unit_core_note(p + n, NT_PRSTATUS, &ps, sizeof(ps));
	n += unit_core_note(p + n, NT_AUXV, auxv, sizeof(auxv));
	n += unit_core_note(p + n, 0x46494c45, fdesc, sizeof(fdesc));
	return n;
}

/* The core: headers, notes, then each load's dumped pages, page i of the data filled with the byte i + 1. */
static void make_core(uint64_t sp, uint64_t tp)
{
	Elf64_Phdr nh = { .p_type = PT_NOTE };
	size_t hdrs = sizeof(Elf64_Ehdr) + (NLOADS + 1) * sizeof(nh), off;
	const uint64_t at[NLOADS] = { EXE, HEAP, STACK, VDSO }, dumped[NLOADS] = { 1, 3, 4, 1 },
		       mem[NLOADS] = { 2, 3, 4, 1 };

	memset(core, 0, sizeof(core));
	unit_core_ehdr(core, NLOADS + 1);
	nh.p_offset = hdrs;
	nh.p_filesz = notes(core + hdrs, sp, tp);
	memcpy(core + sizeof(Elf64_Ehdr), &nh, sizeof(nh));
	data_off = off = (hdrs + nh.p_filesz + PG - 1) & ~(PG - 1);
	for (int i = 0; i < NLOADS; i++) {
		loads[i] = (Elf64_Phdr) { .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = off, .p_vaddr = at[i],
					  .p_filesz = dumped[i] * PG, .p_memsz = mem[i] * PG, .p_align = PG };
		memcpy(core + sizeof(Elf64_Ehdr) + (i + 1) * sizeof(nh), &loads[i], sizeof(nh));
		off += loads[i].p_filesz;
	}
	for (size_t p = 0; data_off + p * PG < off; p++)
		memset(core + data_off + p * PG, (int)(p + 1), PG);
	core_len = off;
}

static void plan(struct coreplan *p, const struct linkmap *lm)
{
	struct core_notes *n = calloc(1, sizeof(*n));
	uint64_t need;

	ck_assert_int_eq(coreplan_need(core, core_len, &need), 0);
	ck_assert_int_eq(coreplan_notes(core, need, n), 0);
	ck_assert_uint_eq(n->threads, 1);
	ck_assert_uint_eq(n->vdso, VDSO);
	ck_assert_uint_eq(n->n_files, 1);
	ck_assert_int_eq(coreplan_build(core, need, n, lm, 1 << 20, p), 0);
	core_notes_free(n);
	free(n);
}

START_TEST(test_plan)
{
	struct coreplan p;
	const struct { uint64_t len; enum piece_kind k; } want[] = {
		{ 0, PIECE_DROP },          /* the padding after the notes: its length is checked apart */
		{ PG, PIECE_KEEP },         /* the executable's header page */
		{ PG, PIECE_MASK },         /* the heap page with the TCB */
		{ 2 * PG, PIECE_DROP },     /* the rest of the heap */
		{ PG, PIECE_DROP },         /* the stack below the stack pointer's page */
		{ 3 * PG, PIECE_KEEP },     /* from its page to the top */
		{ PG, PIECE_KEEP },         /* the vDSO */
	};

	make_core(STACK + PG + 200, HEAP + 100);
	plan(&p, NULL);
	ck_assert_uint_eq(p.n_pieces, ELEMENTSOF(want));
	for (size_t i = 1; i < ELEMENTSOF(want); i++) {
		ck_assert_uint_eq(p.pieces[i].len, want[i].len);
		ck_assert_int_eq(p.pieces[i].kind, want[i].k);
	}
	ck_assert_uint_eq(p.pieces[0].in_off + p.pieces[0].len, data_off);
	ck_assert_uint_eq(p.threads, 1);
	ck_assert_uint_eq(p.stack_bytes, 3 * PG);
	ck_assert_uint_eq(p.file_bytes, 2 * PG);
	ck_assert_uint_eq(p.n_masks, 1);
	ck_assert_uint_eq(p.masks[0].start, HEAP + 100);
	coreplan_free(&p);
}
END_TEST

/* Streams the core in file fd through the filter: the minimal core's bytes, *len of them. */
static unsigned char *stream(int fd, uint64_t stack_max, size_t *len, struct minicore_stats *st)
{
	static unsigned char out[sizeof(core)];
	struct minicore m;
	ssize_t n;

	minicore_init(&m, fd, -1, stack_max);
	n = minicore_read(&m, out, sizeof(out), NULL);
	ck_assert_int_ge(n, 0);
	ck_assert_int_eq(minicore_read(&m, out + n, 1, NULL), 0);
	*len = (size_t)n;
	*st = m.st;
	minicore_free(&m);
	return out;
}

static int core_file(void)
{
	FILE *f = tmpfile();

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(core, 1, core_len, f), core_len);
	fflush(f);
	lseek(fileno(f), 0, SEEK_SET);
	return dup(fileno(f));
}

/* The byte the original core holds at vaddr (the page's fill), or 0 outside the dumped pages. */
static unsigned char original(uint64_t vaddr)
{
	for (int i = 0; i < NLOADS; i++)
		if (vaddr >= loads[i].p_vaddr && vaddr < loads[i].p_vaddr + loads[i].p_filesz)
			return core[loads[i].p_offset + (vaddr - loads[i].p_vaddr)];
	return 0;
}

START_TEST(test_stream)
{
	struct minicore_stats st;
	size_t len;
	int fd;
	unsigned char *out;
	Elf64_Ehdr e;
	uint64_t kept = 0;

	make_core(STACK + PG + 200, HEAP + 100);
	fd = core_file();
	out = stream(fd, 1 << 20, &len, &st);
	ck_assert(st.minimal);
	ck_assert_uint_eq(st.input, core_len);
	memcpy(&e, out, sizeof(e));
	ck_assert_uint_eq(e.e_type, ET_CORE);
	ck_assert_uint_eq(e.e_phnum, 1 + 7);
	for (unsigned i = 1; i < e.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, out + e.e_phoff + i * sizeof(ph), sizeof(ph));
		ck_assert_uint_le(ph.p_offset + ph.p_filesz, len);
		ck_assert_uint_eq(ph.p_offset % PG, 0);
		for (uint64_t b = 0; b < ph.p_filesz; b++) {
			uint64_t va = ph.p_vaddr + b;
			bool tcb = va >= HEAP + 100 && va < HEAP + 100 + 3072;
			unsigned char want = va >= HEAP && va < HEAP + 3 * PG && !tcb ? 0 : original(va);

			ck_assert_uint_eq(out[ph.p_offset + b], want);
		}
		kept += ph.p_filesz;
	}
	/* Header, stack (3 pages), vDSO, and the TCB's page. */
	ck_assert_uint_eq(kept, 6 * PG);
	close(fd);
}
END_TEST

START_TEST(test_stack_bound)
{
	struct coreplan p;

	make_core(STACK + 200, 0);
	{
		struct core_notes *n = calloc(1, sizeof(*n));
		uint64_t need;

		ck_assert_int_eq(coreplan_need(core, core_len, &need), 0);
		ck_assert_int_eq(coreplan_notes(core, need, n), 0);
		ck_assert_int_eq(coreplan_build(core, need, n, NULL, PG, &p), 0);
		core_notes_free(n);
		free(n);
	}
	ck_assert_uint_eq(p.stacks_cut, 1);
	ck_assert_uint_eq(p.stack_bytes, PG);
	coreplan_free(&p);
}
END_TEST

/* Not a core this machine's plan knows, or headers out of place: the core passes whole, byte for byte. */
START_TEST(test_whole)
{
	struct minicore_stats st;
	Elf64_Phdr ph;
	size_t len;
	int fd;
	unsigned char *out;

	make_core(STACK + PG, 0);
	core[18] = EM_AARCH64 == core[18] ? EM_X86_64 : EM_AARCH64;   /* e_machine */
	fd = core_file();
	out = stream(fd, 1 << 20, &len, &st);
	ck_assert(!st.minimal);
	ck_assert_str_eq(st.why, "not a core of this machine's architecture");
	ck_assert_uint_eq(len, core_len);
	ck_assert_mem_eq(out, core, core_len);
	close(fd);
	/* Loads out of order. */
	make_core(STACK + PG, 0);
	memcpy(&ph, core + sizeof(Elf64_Ehdr) + 2 * sizeof(ph), sizeof(ph));
	ph.p_offset = 0;
	memcpy(core + sizeof(Elf64_Ehdr) + 2 * sizeof(ph), &ph, sizeof(ph));
	fd = core_file();
	out = stream(fd, 1 << 20, &len, &st);
	ck_assert(!st.minimal);
	ck_assert_mem_eq(out, core, core_len);
	close(fd);
	/* Cut inside the notes. */
	make_core(STACK + PG, 0);
	core_len = sizeof(Elf64_Ehdr) + 5 * sizeof(Elf64_Phdr) + 30;
	fd = core_file();
	(void) stream(fd, 1 << 20, &len, &st);
	ck_assert(!st.minimal);
	ck_assert_uint_eq(len, core_len);
	close(fd);
}
END_TEST

/* A fake memory: the executable's headers, its dynamic section, r_debug, two link_map entries and their names. */
static unsigned char mem[8192];
#define BASE 0x10000ULL

static int read_fake(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void) ctx;
	if (addr < BASE || addr - BASE > sizeof(mem) || len > sizeof(mem) - (addr - BASE))
		return -EIO;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

static void make_memory(bool cycle)
{
	Elf64_Phdr ph[2] = { { .p_type = PT_PHDR, .p_vaddr = 0x40 }, { .p_type = PT_DYNAMIC, .p_vaddr = 0x200,
								     .p_memsz = 48 } };
	Elf64_Dyn dyn[3] = { { DT_NEEDED, { 1 } }, { DT_DEBUG, { BASE + 0x400 } }, { DT_NULL, { 0 } } };
	uint64_t rd[6] = { 1, BASE + 0x800, 0, 0, 0, 0 };
	uint64_t lm1[5] = { 0, BASE + 0x1000, 0, BASE + 0x900, 0 }, lm2[5] = { 0, BASE + 0x1100, 0, 0, 0 };

	memset(mem, 0, sizeof(mem));
	/* Loaded at BASE - 0x0: PT_PHDR says 0x40, AT_PHDR is BASE + 0x40. */
	memcpy(mem + 0x40, ph, sizeof(ph));
	memcpy(mem + 0x200, dyn, sizeof(dyn));
	memcpy(mem + 0x400, rd, sizeof(rd));
	if (cycle)
		lm2[3] = BASE + 0x800;
	memcpy(mem + 0x800, lm1, sizeof(lm1));
	memcpy(mem + 0x900, lm2, sizeof(lm2));
	memcpy(mem + 0x1000, "/lib/libone.so", 15);
	memcpy(mem + 0x1100, "/lib/libtwo.so", 15);
}

START_TEST(test_linkmap)
{
	const struct linkmap_start s = { BASE + 0x40, 2 };
	struct linkmap *lm = calloc(1, sizeof(*lm));
	bool name = false;

	make_memory(false);
	ck_assert_int_eq(linkmap_walk(&s, read_fake, NULL, lm), 0);
	ck_assert_uint_eq(lm->modules, 2);
	for (unsigned i = 0; i < lm->n; i++)
		name |= lm->spans[i].start == BASE + 0x1100 && lm->spans[i].end == BASE + 0x1100 + 15;
	ck_assert(name);
	/* A cycle in the chain ends at the bound. */
	make_memory(true);
	ck_assert_int_eq(linkmap_walk(&s, read_fake, NULL, lm), 0);
	ck_assert_uint_eq(lm->modules, 1024);
	/* A static executable has no dynamic section. */
	mem[0x40 + sizeof(Elf64_Phdr)] = PT_NULL;
	ck_assert_int_eq(linkmap_walk(&s, read_fake, NULL, lm), -ENOENT);
	free(lm);
}
END_TEST

/* The process's memory as /proc/PID/mem shows it: each load's dumped pages at their addresses, in a sparse memfd. */
static int memory_file(void)
{
	int fd = memfd_create("mem", 0);

	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < NLOADS; i++)
		ck_assert_int_eq(pwrite(fd, core + loads[i].p_offset, loads[i].p_filesz, (off_t)loads[i].p_vaddr),
				 (ssize_t)loads[i].p_filesz);
	return fd;
}

/* The core's first cut bytes in a file of their own, as a cut leaves them. */
static int cut_file(size_t cut)
{
	int fd = memfd_create("cut", 0);

	ck_assert_int_eq(pwrite(fd, core, cut, 0), (ssize_t)cut);
	return fd;
}

/*
 * The rescued file out (size bytes) says what it holds: every PT_LOAD lies within the file and holds the process's
 * bytes at its addresses, and the stack from the stack pointer's page up is among them.
 */
static void check_rescued(int out, uint64_t size)
{
	static unsigned char f[sizeof(core) * 2];
	Elf64_Ehdr e;
	uint64_t stack = 0;

	ck_assert_uint_le(size, sizeof(f));
	ck_assert_int_eq(pread(out, f, size, 0), (ssize_t)size);
	memcpy(&e, f, sizeof(e));
	ck_assert_uint_le(e.e_phoff + (uint64_t)e.e_phnum * sizeof(Elf64_Phdr), size);
	for (unsigned i = 0; i < e.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, f + e.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD)
			continue;
		ck_assert_uint_le(ph.p_offset + ph.p_filesz, size);
		for (uint64_t b = 0; b < ph.p_filesz; b += PG / 2)
			ck_assert_uint_eq(f[ph.p_offset + b], original(ph.p_vaddr + b));
		if (ph.p_vaddr <= STACK + PG && ph.p_vaddr + ph.p_filesz > STACK + PG)
			stack += ph.p_vaddr + ph.p_filesz - (STACK + PG);
	}
	ck_assert_uint_ge(stack, 3 * PG);
}

/* A core cut short gets the pieces after it; one a limit cut, in place of its last bytes; too small a limit, none. */
START_TEST(test_rescue)
{
	struct rescue r;
	uint64_t need, size, cut;
	int proc_mem, store, out;

	make_core(STACK + PG + 200, HEAP + 100);
	ck_assert_int_eq(rescue_need(core, core_len, &need), 0);
	proc_mem = memory_file();
	ck_assert_int_eq(rescue_plan(core, need, proc_mem, 1 << 20, &r), 0);
	ck_assert_uint_eq(r.threads, 1);
	store = memfd_create("store", 0);
	ck_assert_int_eq(rescue_read(&r, proc_mem, store), 0);
	ck_assert_uint_eq(r.read, r.bytes);

	/* Cut short in the heap: everything after it is added. */
	out = cut_file(data_off + 2 * PG);
	ck_assert_int_eq(rescue_apply(out, data_off + 2 * PG, core, need, &r, &size), 0);
	ck_assert_uint_gt(size, data_off + 2 * PG);
	check_rescued(out, size);
	close(out);

	/* A limit a page short of the whole core: the file stays within it, the stack whole in it. */
	out = cut_file(data_off + 8 * PG);
	ck_assert_int_eq(rescue_fit(data_off + 8 * PG, core, need, &r, &cut), 0);
	/* The largest: the executable's and the heap's pages in place, the stack and the vDSO's (4) after. */
	ck_assert_uint_eq(cut, data_off + 3 * PG);
	ck_assert_int_eq(rescue_apply(out, cut, core, need, &r, &size), 0);
	ck_assert_uint_le(size, data_off + 8 * PG);
	ck_assert_int_eq(ftruncate(out, (off_t)size), 0);
	check_rescued(out, size);
	close(out);

	/* No room after the headers and notes: nothing is planned to go there. */
	ck_assert_int_eq(rescue_fit(data_off + PG, core, need, &r, &cut), -ENOSPC);
	rescue_free(&r);
	close(proc_mem);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("minicore");
	TCase *tc = tcase_create("minicore");

	tcase_add_test(tc, test_plan);
	tcase_add_test(tc, test_stream);
	tcase_add_test(tc, test_stack_bound);
	tcase_add_test(tc, test_whole);
	tcase_add_test(tc, test_linkmap);
	tcase_add_test(tc, test_rescue);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
