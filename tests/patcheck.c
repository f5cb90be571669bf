/*
 * patcheck.c: finds the crasher's pattern in a core file and says how much of it is there, intact.
 * usage: patcheck FILE MIB   exit 0 when all MIB are present, 1 when only a prefix is, 2 when none or on error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pattern.h"

int main(int argc, char **argv)
{
	uint64_t head[8], want, have = 0;
	struct stat st;
	const char *map, *start;
	int fd;

	if (argc != 3)
		return fprintf(stderr, "usage: patcheck FILE MIB\n"), 2;
	want = strtoull(argv[2], NULL, 10) << 20;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0)
		return perror(argv[1]), 2;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return perror("mmap"), 2;
	for (int i = 0; i < 8; i++)
		head[i] = pattern_word((uint64_t)i);
	start = memmem(map, (size_t)st.st_size, head, sizeof(head));
	if (!start)
		return printf("pattern: not found\n"), 2;
	for (const uint64_t *w = (const uint64_t *)start;
	     (const char *)(w + 1) <= map + st.st_size && have < want && *w == pattern_word(have / 8); w++)
		have += 8;
	printf("pattern: %llu of %llu bytes at offset %lld\n", (unsigned long long)have, (unsigned long long)want,
	       (long long)(start - map));
	return have == want ? 0 : 1;
}
