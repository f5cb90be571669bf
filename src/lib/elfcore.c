/*
 * elfcore.c: what the first bytes of a core say about the signal. The kernel writes an ELF core as the ELF header,
 * the program headers, then the PT_NOTE segment, whose first notes are the crashing thread's: NT_PRSTATUS,
 * NT_PRPSINFO, NT_SIGINFO. The bytes come from the crashing process's memory and the kernel's view of it, so every
 * offset is checked against the bytes at hand; anything out of place is -EBADMSG, never a guess.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "elfcore.h"

#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif

/* Where the PT_NOTE segment lies in the core: its offset and size. */
struct span {
	uint64_t off, len;
};

static uint32_t u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Whether [off, off + n) lies within len bytes. */
static int within(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

/* Whether the program header at p is the PT_NOTE segment; *notes says where it lies then. */
static int is_note(const unsigned char *p, int is64, struct span *notes)
{
	if (is64) {
		Elf64_Phdr ph;

		memcpy(&ph, p, sizeof(ph));
		*notes = (struct span) { ph.p_offset, ph.p_filesz };
		return ph.p_type == PT_NOTE;
	} else {
		Elf32_Phdr ph;

		memcpy(&ph, p, sizeof(ph));
		*notes = (struct span) { ph.p_offset, ph.p_filesz };
		return ph.p_type == PT_NOTE;
	}
}

/* Finds the PT_NOTE segment of a 64-bit (or, for compat processes, 32-bit) ELF core of this machine's byte order. */
static int find_notes(const unsigned char *h, size_t len, struct span *notes)
{
	int is64 = len > EI_CLASS && h[EI_CLASS] == ELFCLASS64;
	size_t ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	uint64_t phoff, phnum, phentsize;

	if (len < ehsize || memcmp(h, ELFMAG, SELFMAG) != 0 || h[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ?
	    ELFDATA2LSB : ELFDATA2MSB))
		return -EBADMSG;
	if (is64) {
		Elf64_Ehdr e;

		memcpy(&e, h, sizeof(e));
		phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
	} else {
		Elf32_Ehdr e;

		memcpy(&e, h, sizeof(e));
		phoff = e.e_phoff, phnum = e.e_phnum, phentsize = e.e_phentsize;
	}
	if (phentsize != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return -EBADMSG;
	/* With PN_XNUM the count is elsewhere, but the notes still come first: the headers at hand are enough. */
	for (uint64_t i = 0; i < phnum && phoff < len && within(phoff + i * phentsize, phentsize, len); i++)
		if (is_note(h + phoff + i * phentsize, is64, notes))
			return 0;
	return -EBADMSG;
}

static uint64_t align4(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

/*
 * Reads the signal of the crash from the NT_SIGINFO note in the first len bytes of a core. 0, -ENOENT when the
 * notes at hand hold none, or -EBADMSG when this is not an ELF core.
 */
int elfcore_siginfo(const void *head, size_t len, struct core_signal *s)
{
	const unsigned char *h = head;
	struct span notes;
	uint64_t off, end;
	int r = find_notes(h, len, &notes);

	if (r < 0)
		return r;
	if (notes.off >= len)
		return -ENOENT;
	end = notes.len < len - notes.off ? notes.off + notes.len : len;
	for (off = notes.off; off + 12 <= end;) {
		uint32_t namesz = u32(h + off), descsz = u32(h + off + 4), type = u32(h + off + 8);
		uint64_t desc = off + 12 + align4(namesz);

		if (!within(desc, descsz, end))
			break;
		if (type == NT_SIGINFO && namesz == sizeof("CORE") && memcmp(h + off + 12, "CORE", namesz) == 0 &&
		    descsz >= 3 * sizeof(int)) {
			int v[3];

			memcpy(v, h + desc, sizeof(v));
			*s = (struct core_signal) { .signo = v[0], .errnum = v[1], .code = v[2] };
			return 0;
		}
		off = desc + align4(descsz);
	}
	return -ENOENT;
}
