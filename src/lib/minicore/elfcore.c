/*
 * elfcore.c: what the first bytes of a core say: the signal, and how large the core will be. The kernel writes an
 * ELF core as the ELF header, the program headers, then the PT_NOTE segment, whose first notes are the crashing
 * thread's: NT_PRSTATUS, NT_PRPSINFO, NT_SIGINFO. The bytes come from the crashing process's memory and the
 * kernel's view of it, so every offset is checked against the bytes at hand; anything out of place is -EBADMSG,
 * never a guess.
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

/* A core's program headers, as its ELF header says: num of them at off, 64- or 32-bit. */
struct phdrs {
	int is64;
	uint64_t off, num, entsize;
};

/* Reads program header i into type and *seg (where its bytes lie in the core), checked to lie within len. */
static int phdr_at(const unsigned char *h, size_t len, const struct phdrs *ph, uint64_t i, uint32_t *type,
		   struct span *seg)
{
	uint64_t at = ph->off + i * ph->entsize;

	if (i >= ph->num || ph->off > len || !within(at, ph->entsize, len))
		return -ERANGE;
	if (ph->is64) {
		Elf64_Phdr p;

		memcpy(&p, h + at, sizeof(p));
		*type = p.p_type;
		*seg = (struct span) { p.p_offset, p.p_filesz };
	} else {
		Elf32_Phdr p;

		memcpy(&p, h + at, sizeof(p));
		*type = p.p_type;
		*seg = (struct span) { p.p_offset, p.p_filesz };
	}
	return 0;
}

/* Reads the ELF header of a 64-bit (or, for compat processes, 32-bit) core of this machine's byte order. */
static int read_ehdr(const unsigned char *h, size_t len, struct phdrs *ph)
{
	int is64 = len > EI_CLASS && h[EI_CLASS] == ELFCLASS64;
	size_t ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);

	if (len < ehsize || memcmp(h, ELFMAG, SELFMAG) != 0 || h[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ?
	    ELFDATA2LSB : ELFDATA2MSB))
		return -EBADMSG;
	if (is64) {
		Elf64_Ehdr e;

		memcpy(&e, h, sizeof(e));
		*ph = (struct phdrs) { 1, e.e_phoff, e.e_phnum, e.e_phentsize };
	} else {
		Elf32_Ehdr e;

		memcpy(&e, h, sizeof(e));
		*ph = (struct phdrs) { 0, e.e_phoff, e.e_phnum, e.e_phentsize };
	}
	return ph->entsize == (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) ? 0 : -EBADMSG;
}

/* Finds the PT_NOTE segment. With PN_XNUM the count is elsewhere, but the notes still come first. */
static int find_notes(const unsigned char *h, size_t len, struct span *notes)
{
	struct phdrs ph;
	uint32_t type;
	int r = read_ehdr(h, len, &ph);

	for (uint64_t i = 0; r == 0; i++) {
		r = phdr_at(h, len, &ph, i, &type, notes);
		if (r == 0 && type == PT_NOTE)
			return 0;
	}
	return -EBADMSG;
}

/*
 * The size of the core the kernel is writing, from its program headers: where the segment that ends last ends.
 * 0, -EBADMSG when this is not an ELF core, or -ERANGE when the headers are not all in the len bytes at hand (or
 * their count is elsewhere: PN_XNUM).
 */
int elfcore_size(const void *head, size_t len, uint64_t *size)
{
	const unsigned char *h = head;
	struct phdrs ph;
	struct span seg;
	uint32_t type;
	uint64_t end = 0;
	int r = read_ehdr(h, len, &ph);

	if (r < 0)
		return r;
	if (ph.num == PN_XNUM || ph.num == 0)
		return -ERANGE;
	for (uint64_t i = 0; i < ph.num; i++) {
		r = phdr_at(h, len, &ph, i, &type, &seg);
		if (r < 0)
			return r;
		if (seg.off > UINT64_MAX - seg.len)
			return -EBADMSG;
		if (seg.off + seg.len > end)
			end = seg.off + seg.len;
	}
	*size = end;
	return 0;
}

static uint64_t align4(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

/*
 * Finds the first "CORE" note of type in the first len bytes of a core: where its descriptor lies (*desc, *descsz,
 * all within len). 0, -ENOENT when the notes at hand hold none, or -EBADMSG when this is not an ELF core.
 */
static int find_note(const unsigned char *h, size_t len, uint32_t want, uint64_t *at, uint32_t *size)
{
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
		if (type == want && namesz == sizeof("CORE") && memcmp(h + off + 12, "CORE", namesz) == 0) {
			*at = desc, *size = descsz;
			return 0;
		}
		off = desc + align4(descsz);
	}
	return -ENOENT;
}

/*
 * Reads the signal of the crash from the NT_SIGINFO note in the first len bytes of a core. 0, -ENOENT when the
 * notes at hand hold none, or -EBADMSG when this is not an ELF core.
 */
int elfcore_siginfo(const void *head, size_t len, struct core_signal *s)
{
	const unsigned char *h = head;
	uint64_t at;
	uint32_t size;
	int v[3], r = find_note(h, len, NT_SIGINFO, &at, &size);

	if (r < 0)
		return r;
	if (size < sizeof(v))
		return -EBADMSG;
	memcpy(v, h + at, sizeof(v));
	*s = (struct core_signal) { .signo = v[0], .errnum = v[1], .code = v[2] };
	return 0;
}

/*
 * The thread that crashed, as its core names it: the first NT_PRSTATUS is the dumping thread's, and its pr_pid is
 * that thread's id; NT_PRPSINFO's pr_pid is the process's. Both are as the crashing process's own pid namespace
 * sees them, so *tid is given only where the process's id there is pid, the one the caller knows it by: a process
 * in a pid namespace of its own (a container the caller is not in) gets no thread. Only 64-bit cores are read
 * (struct elf_prstatus and elf_prpsinfo of x86_64 and aarch64: pr_pid at 32 and at 24). 0, -ENOENT, -EBADMSG.
 */
int elfcore_thread(const void *head, size_t len, pid_t pid, pid_t *tid)
{
	const unsigned char *h = head;
	uint64_t status, info;
	/* Set by find_note() whenever it returns 0 (clang's analyzer does not follow find_notes() that far). */
	uint32_t status_size = 0, info_size = 0;
	int32_t thread, process;
	int r;

	if (len < EI_NIDENT || h[EI_CLASS] != ELFCLASS64)
		return -ENOENT;
	r = find_note(h, len, NT_PRSTATUS, &status, &status_size);
	if (r == 0)
		r = find_note(h, len, NT_PRPSINFO, &info, &info_size);
	if (r < 0)
		return r;
	if (status_size < 36 || info_size < 28)
		return -EBADMSG;
	memcpy(&thread, h + status + 32, sizeof(thread));
	memcpy(&process, h + info + 24, sizeof(process));
	if (process != pid || thread <= 0)
		return -ENOENT;
	*tid = thread;
	return 0;
}

/* Where NT_PRPSINFO of a 64-bit core (struct elf_prpsinfo) holds the process's own text: pr_fname, pr_psargs. */
#define PRPSINFO_FNAME 40
#define PRPSINFO_TEXT (16 + 80)

/*
 * Makes the crashing process's own text in the core's NT_PRPSINFO (its name and command line, which gdb prints as
 * "Core was generated by `...'") safe for a terminal, in the first len bytes of a core: every byte but printable
 * ASCII becomes '?' (an escape sequence, a bidi control, a line of its own). The count of bytes changed (0: none,
 * or no such note here), or -EBADMSG when this is not an ELF core.
 */
int elfcore_clean_psinfo(void *head, size_t len)
{
	unsigned char *h = head;
	uint64_t at;
	uint32_t size;
	int r = find_note(h, len, NT_PRPSINFO, &at, &size), n = 0;

	if (r < 0)
		return r == -ENOENT ? 0 : r;
	if (size < PRPSINFO_FNAME + PRPSINFO_TEXT)
		return 0;
	for (size_t i = 0; i < PRPSINFO_TEXT; i++) {
		unsigned char *c = h + at + PRPSINFO_FNAME + i;

		if (*c != '\0' && (*c < 0x20 || *c > 0x7e)) {
			*c = '?';
			n++;
		}
	}
	return n;
}
