/*
 * corecheck.c: checks a stored core against its victim, reading it once from the start (a file, or a pipe from a
 * decompressor): an ELF core that holds every byte its program headers promise, with a segment at the victim's
 * mapping whose bytes are the pattern (zero pages where the victim left them untouched). A core that is cut,
 * shifted or corrupted anywhere in the pattern fails.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "base.h"
#include "corecheck.h"
#include "pattern.h"

#define BLOCK (1u << 20)   /* the program headers must lie in the first block, as the kernel writes them */

/* Where the victim's segment starts in the file, and how far the file must reach. */
struct layout {
	uint64_t seg, need;
};

/* Reads the layout from the core's first block. 0 or -EBADMSG. */
static int layout(const unsigned char *head, size_t n, uint64_t addr, uint64_t bytes, struct layout *l)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)head;
	bool found = false;

	if (n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_type != ET_CORE || eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > n ||
	    (n - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return -EBADMSG;
	l->need = 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, head + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_offset + ph.p_filesz > l->need)
			l->need = ph.p_offset + ph.p_filesz;
		if (ph.p_type == PT_LOAD && ph.p_vaddr == addr && ph.p_filesz >= bytes && ph.p_offset % 8 == 0) {
			l->seg = ph.p_offset;
			found = true;
		}
	}
	return found ? 0 : -EBADMSG;
}

/* Compares the part of block [pos, pos + n) that falls in the pattern. true when it matches. */
static bool block_matches(const unsigned char *buf, uint64_t pos, size_t n, const struct layout *l,
			  const struct victim *v)
{
	uint64_t from = pos > l->seg ? pos : l->seg, to = pos + n < l->seg + v->bytes ? pos + n : l->seg + v->bytes;

	for (uint64_t off = from; off + 8 <= to; off += 8) {
		uint64_t w;

		memcpy(&w, buf + (off - pos), 8);
		if (w != pattern_at((off - l->seg) / 8, v->zero_percent))
			return false;
	}
	return true;
}

/* Reads fd to its end. 0 when it is the victim's complete core, -EBADMSG when not, or -errno. */
int corecheck_stream(int fd, const struct victim *v)
{
	static unsigned char buf[BLOCK];
	struct layout l;
	uint64_t pos = 0;
	bool ok;
	ssize_t n = io_read_full(fd, buf, sizeof(buf), NULL);

	if (n < 0)
		return (int)n;
	if (layout(buf, (size_t)n, v->addr, v->bytes, &l) < 0)
		return -EBADMSG;
	/* Every read but the last is a whole block: positions stay aligned to the pattern's words. */
	do {
		ok = block_matches(buf, pos, (size_t)n, &l, v);
		pos += (uint64_t)n;
	} while (ok && n == (ssize_t)sizeof(buf) && (n = io_read_full(fd, buf, sizeof(buf), NULL)) > 0);
	if (n < 0)
		return (int)n;
	return ok && pos >= l.need && pos >= l.seg + v->bytes ? 0 : -EBADMSG;
}
