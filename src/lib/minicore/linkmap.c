/*
 * linkmap.c: the dynamic linker's module list, as the debugger finds it. From the executable's program headers
 * (AT_PHDR) to its dynamic section, its DT_DEBUG entry to r_debug, r_map to the link_map chain: l_addr, l_name, l_ld,
 * l_next, l_prev (what gdb's solib-svr4 and elfutils' dwfl_link_map_report read) and each name. With glibc 2.35's
 * r_debug_extended, r_next leads to the other namespaces (dlmopen). The memory belongs to a crashed and possibly
 * hostile process: every count is bounded and every read may fail, which only ends the walk.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "base.h"
#include "linkmap.h"

#define PHNUM_MAX 256
#define DYN_MAX 1024
#define MODULES_MAX 1024
#define NAMESPACES_MAX 16
#define NAME_READ 512       /* gdb reads a module's name up to SO_NAME_MAX_PATH_SIZE, 512 */
#define LINK_MAP_WORDS 5    /* l_addr, l_name, l_ld, l_next, l_prev */
#define R_DEBUG_BYTES 48    /* r_version .. r_ldbase, and r_next of r_debug_extended */

static void keep(struct linkmap *lm, uint64_t addr, uint64_t len)
{
	if (lm->n < LINKMAP_SPANS_MAX && addr + len > addr)
		lm->spans[lm->n++] = (struct span64) { addr, addr + len };
}

static int fail(struct linkmap *lm, int r)
{
	if (!lm->error)
		lm->error = r;
	return r;
}

/* The run-time address of the executable's dynamic section and its size, from its program headers. */
static int find_dynamic(const struct linkmap_start *s, linkmap_reader read, void *ctx, uint64_t *dyn, uint64_t *size)
{
	Elf64_Phdr ph[PHNUM_MAX];
	uint64_t n = s->phnum < PHNUM_MAX ? s->phnum : PHNUM_MAX, bias = 0;
	int r;

	if (s->phdr == 0 || n == 0)
		return -ENOENT;
	r = read(ctx, s->phdr, ph, n * sizeof(ph[0]));
	if (r < 0)
		return r;
	/* A position-independent executable is loaded at a bias: PT_PHDR says where its headers were meant to be. */
	for (uint64_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = s->phdr - ph[i].p_vaddr;
	for (uint64_t i = 0; i < n; i++) {
		if (ph[i].p_type == PT_DYNAMIC) {
			*dyn = bias + ph[i].p_vaddr;
			*size = ph[i].p_memsz;
			return 0;
		}
	}
	return -ENOENT;   /* a static executable: no module list */
}

/* r_debug's address, from DT_DEBUG in the dynamic section (0 until the dynamic linker has set it). */
static int find_r_debug(uint64_t dyn, uint64_t size, linkmap_reader read, void *ctx, struct linkmap *lm,
			uint64_t *rdebug)
{
	uint64_t n = size / sizeof(Elf64_Dyn);

	keep(lm, dyn, size);
	for (uint64_t i = 0; i < n && i < DYN_MAX; i++) {
		Elf64_Dyn d;
		int r = read(ctx, dyn + i * sizeof(d), &d, sizeof(d));

		if (r < 0)
			return r;
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_DEBUG) {
			*rdebug = d.d_un.d_ptr;
			return d.d_un.d_ptr ? 0 : -ENOENT;
		}
	}
	return -ENOENT;
}

/* A module's name: the bytes up to its NUL, at most NAME_READ. A read that fails past the first bytes stops there. */
static void keep_name(uint64_t addr, linkmap_reader read, void *ctx, struct linkmap *lm)
{
	char name[NAME_READ];
	size_t len = 0;

	/* The name may end near the end of its mapping: read a piece at a time. */
	for (size_t step = 64; len < sizeof(name); len += step) {
		if (read(ctx, addr + len, name + len, step) < 0)
			break;
		if (memchr(name + len, '\0', step)) {
			len += (size_t)((char *)memchr(name + len, '\0', step) - (name + len)) + 1;
			keep(lm, addr, len);
			return;
		}
	}
	if (len > 0)
		keep(lm, addr, len);
}

/* One namespace's chain of link_map entries, from r_map. */
static void walk_chain(uint64_t map, linkmap_reader read, void *ctx, struct linkmap *lm)
{
	for (unsigned i = 0; map && i < MODULES_MAX && lm->modules < MODULES_MAX; i++) {
		uint64_t w[LINK_MAP_WORDS];
		int r = read(ctx, map, w, sizeof(w));

		if (r < 0) {
			(void) fail(lm, r);
			return;
		}
		keep(lm, map, sizeof(w));
		lm->modules++;
		if (w[1])
			keep_name(w[1], read, ctx, lm);
		map = w[3];
	}
}

/*
 * Finds the bytes that name the loaded modules, into lm. 0, or -errno when there is no module list to find (a static
 * executable, -ENOENT) or it could not be read; lm keeps what was found before.
 */
int linkmap_walk(const struct linkmap_start *s, linkmap_reader read, void *ctx, struct linkmap *lm)
{
	uint64_t dyn = 0, size = 0, rdebug = 0;
	int r;

	memset(lm, 0, sizeof(*lm));
	r = find_dynamic(s, read, ctx, &dyn, &size);
	if (r == 0)
		r = find_r_debug(dyn, size, read, ctx, lm, &rdebug);
	if (r < 0)
		return fail(lm, r);
	for (unsigned ns = 0; rdebug && ns < NAMESPACES_MAX; ns++) {
		struct { int32_t version; int32_t pad; uint64_t map, brk, state, ldbase, next; } rd;

		r = read(ctx, rdebug, &rd, sizeof(rd));
		if (r < 0)
			return fail(lm, r);
		keep(lm, rdebug, R_DEBUG_BYTES);
		walk_chain(rd.map, read, ctx, lm);
		/* r_next is there from version 2 on (glibc 2.35); before, the bytes after r_ldbase are not r_debug's. */
		rdebug = rd.version >= 2 ? rd.next : 0;
	}
	return lm->error;
}

/* The reader for a process's memory open as a file (/proc/PID/mem): ctx points at its fd. */
int linkmap_read_fd(void *ctx, uint64_t addr, void *buf, size_t len)
{
	ssize_t r = io_pread_full(*(int *)ctx, buf, len, (off_t)addr);

	return r < 0 ? (int)r : (size_t)r == len ? 0 : -EIO;
}
