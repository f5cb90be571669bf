/* check_prefetch.c: the read-ahead ring (src/lib/write/prefetch.c): what it reads, and the memory it reads into. */
#include "base.h"
#include "producer.h"
#include "unit.h"
#include "write/prefetch.h"

#define MIB (1024 * 1024)

/* The VmFlags of the mapping of this process's that holds addr (/proc/self/smaps), in out; 0, or -1 if none. */
static int vma_flags(const void *addr, char *out, size_t size)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool inside = false;
	int r = -1;

	ck_assert_ptr_nonnull(f);
	while (r < 0 && fgets(line, sizeof(line), f)) {
		unsigned long from, to;

		if (sscanf(line, "%lx-%lx ", &from, &to) == 2)
			inside = from <= (uintptr_t)addr && (uintptr_t)addr < to;
		else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(out, size, "%s", line + 8);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/*
 * The ring begins on a huge page's boundary, advised for huge pages where the kernel has them ("hg" in its
 * mapping's VmFlags): its first pass then faults a page per 2 MiB, not per 4 KiB. And it still reads the input
 * whole, in order, through the ring's four buffers: the bench's producer writes it in 4 KiB writes, as the kernel
 * does, and what the ring gave back, gathered in a memfd, is the producer's stream to the byte.
 */
START_TEST(test_ring_in_huge_pages)
{
	const uint64_t size = 3 * MIB + 123;
	struct prefetch p;
	char flags[512];
	int fds[2], back = memfd_create("check-prefetch", MFD_CLOEXEC);
	pid_t writer;

	ck_assert_int_ge(back, 0);
	ck_assert_int_eq(data_prepare(DATA_RANDOM), 0);
	ck_assert_int_eq(pipe(fds), 0);
	writer = producer_start(fds, size, WRITE_4K);
	ck_assert_int_gt(writer, 0);
	close(fds[1]);
	ck_assert_int_eq(prefetch_start(&p, fds[0], MIB, 4, 0), 0);
	ck_assert_uint_eq((uintptr_t)p.mem % PREFETCH_RING_ALIGN, 0);
	/* Without transparent huge pages in the kernel there is nothing to advise, and madvise says EINVAL. */
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0) {
		ck_assert_int_eq(vma_flags(p.mem, flags, sizeof(flags)), 0);
		ck_assert_msg(strstr(flags, " hg") != NULL, "the ring is not advised for huge pages: VmFlags:%s", flags);
	}
	for (;;) {
		const char *data;
		ssize_t n = prefetch_take(&p, &data, MIB);

		ck_assert_int_ge(n, 0);
		if (n == 0)
			break;
		ck_assert_int_eq(io_write_full(back, data, (size_t)n), 0);
		prefetch_release(&p, (size_t)n);
	}
	prefetch_stop(&p);
	close(fds[0]);
	ck_assert_int_eq(unit_reap(writer), 0);
	ck_assert_int_eq(producer_prefix(back), (int64_t)size);
	ck_assert_int_eq(lseek(back, 0, SEEK_END), (off_t)size);
	close(back);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("prefetch");
	TCase *tc = tcase_create("prefetch");

	tcase_add_test(tc, test_ring_in_huge_pages);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
