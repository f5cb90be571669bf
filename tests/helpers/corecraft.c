/*
 * corecraft.c: a real core made hostile, for the analysis to survive: writes a variant of CORE to stdout.
 * usage: corecraft MODE CORE
 *   phnum   e_phnum 65535: program headers far past the end of the file
 *   notes   every PT_NOTE segment claims 2 GiB
 *   descsz  the first note claims a 4 GiB descriptor
 *   cut     the file ends 200 bytes into the notes
 *   noise   the notes overwritten with pseudo-random bytes (their headers too)
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static Elf64_Phdr *first_note(unsigned char *m)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)m;

	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(m + eh->e_phoff) + i;

		if (ph->p_type == PT_NOTE)
			return ph;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct stat st;
	unsigned char *m;
	Elf64_Ehdr *eh;
	Elf64_Phdr *note;
	size_t len;
	int fd;

	if (argc != 3)
		return fprintf(stderr, "usage: corecraft phnum|notes|descsz|cut|noise CORE\n"), 2;
	fd = open(argv[2], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return perror(argv[2]), 2;
	len = (size_t)st.st_size;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED || len < sizeof(*eh))
		return perror("mmap"), 2;
	eh = (Elf64_Ehdr *)m;
	note = first_note(m);
	if (!note)
		return fprintf(stderr, "corecraft: no PT_NOTE\n"), 2;
	if (strcmp(argv[1], "phnum") == 0) {
		eh->e_phnum = 0xffff;
	} else if (strcmp(argv[1], "notes") == 0) {
		for (unsigned i = 0; i < eh->e_phnum; i++)
			if (((Elf64_Phdr *)(m + eh->e_phoff))[i].p_type == PT_NOTE)
				((Elf64_Phdr *)(m + eh->e_phoff))[i].p_filesz = 1ULL << 31;
	} else if (strcmp(argv[1], "descsz") == 0) {
		((Elf64_Nhdr *)(m + note->p_offset))->n_descsz = 0xfffffff0u;
	} else if (strcmp(argv[1], "cut") == 0) {
		len = note->p_offset + 200;
	} else if (strcmp(argv[1], "noise") == 0) {
		uint64_t x = 0x9e3779b97f4a7c15ULL;

		for (uint64_t i = 0; i < note->p_filesz; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			m[note->p_offset + i] = (unsigned char)x;
		}
	} else {
		return fprintf(stderr, "corecraft: unknown mode %s\n", argv[1]), 2;
	}
	for (size_t off = 0; off < len;) {
		ssize_t n = write(STDOUT_FILENO, m + off, len - off);

		if (n <= 0)
			return perror("write"), 1;
		off += (size_t)n;
	}
	return 0;
}
