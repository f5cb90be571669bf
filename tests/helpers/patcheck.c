/*
 * patcheck.c: finds the crasher's pattern in a core file and says how much of it is there, intact.
 * usage: patcheck FILE MIB [PCT]   exit 0 when all MIB are present (PCT% of the pages zero, as crasher -z PCT
 *        made them), 1 when only a prefix is, 2 when none or on error.
 *        patcheck --elf FILE  exit 0 when the file holds every byte its ELF program headers promise, 1 if not.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pattern.h"

/* A core is complete when it reaches the end of every segment its program headers describe. */
static int elf_check(const char *map, size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;
	uint64_t need = sizeof(*eh);

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_type != ET_CORE)
		return printf("elf: not an ELF core\n"), 2;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph;

		if (eh->e_phoff + (i + 1) * sizeof(*ph) > size)
			return printf("elf: truncated in the program headers\n"), 1;
		ph = (const Elf64_Phdr *)(map + eh->e_phoff + i * sizeof(*ph));
		if (ph->p_offset + ph->p_filesz > need)
			need = ph->p_offset + ph->p_filesz;
	}
	printf("elf: %s, needs %llu bytes, has %llu\n", size >= need ? "complete" : "truncated",
	       (unsigned long long)need, (unsigned long long)size);
	return size >= need ? 0 : 1;
}

int main(int argc, char **argv)
{
	uint64_t head[8], want, have = 0;
	unsigned zero;
	struct stat st;
	const char *map, *start, *path;
	int fd;

	if (argc != 3 && argc != 4)
		return fprintf(stderr, "usage: patcheck FILE MIB [PCT] | patcheck --elf FILE\n"), 2;
	zero = argc == 4 ? (unsigned)strtoul(argv[3], NULL, 10) : 0;
	path = strcmp(argv[1], "--elf") == 0 ? argv[2] : argv[1];
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		return perror(path), 2;
	if (st.st_size == 0)
		return printf("%s: empty\n", path), 2;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return perror("mmap"), 2;
	if (strcmp(argv[1], "--elf") == 0)
		return elf_check(map, (size_t)st.st_size);
	want = strtoull(argv[2], NULL, 10) << 20;
	for (int i = 0; i < 8; i++)
		head[i] = pattern_word((uint64_t)i);
	start = memmem(map, (size_t)st.st_size, head, sizeof(head));
	if (!start)
		return printf("pattern: not found\n"), 2;
	for (const uint64_t *w = (const uint64_t *)start;
	     (const char *)(w + 1) <= map + st.st_size && have < want && *w == pattern_at(have / 8, zero); w++)
		have += 8;
	printf("pattern: %llu of %llu bytes at offset %lld\n", (unsigned long long)have, (unsigned long long)want,
	       (long long)(start - map));
	return have == want ? 0 : 1;
}
