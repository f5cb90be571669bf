/*
 * check_elfcore.c: the signal and the crashing thread read from a core's notes, and the core's size from its program headers, on a core
 * laid out as the kernel writes one (ELF header, program headers, the crashing thread's notes), and on cores cut
 * short or malformed. Real cores are read end to end (t-escape: COREDUMP_CODE of a real SIGSEGV; t-compress: the
 * size).
 */
#include <elf.h>

#include "minicore.h"
#include "unit.h"

#define PHNUM 3

static unsigned char core[8192];

/* A 64-bit core: PT_NOTE second of PHNUM headers; NT_PRSTATUS, NT_PRPSINFO, then NT_SIGINFO (si_code 1). */
static size_t make_core(void)
{
	Elf64_Phdr ph[PHNUM] = { { .p_type = PT_LOAD }, { .p_type = PT_NOTE }, { .p_type = PT_LOAD } };
	unsigned char filler[336] = { 0 }, psinfo[136] = { 0 };
	int32_t thread = 4243, process = 4242;
	int si[32] = { SIGSEGV, 0, 1 };
	size_t off = sizeof(Elf64_Ehdr) + sizeof(ph), n = 0;

	memset(core, 0, sizeof(core));
	/* The dumping thread's pr_pid (struct elf_prstatus, at 32), the process's (struct elf_prpsinfo, at 24). */
	memcpy(filler + 32, &thread, sizeof(thread));
	memcpy(psinfo + 24, &process, sizeof(process));
	n += unit_core_note(core + off + n, NT_PRSTATUS, filler, sizeof(filler));
	n += unit_core_note(core + off + n, NT_PRPSINFO, psinfo, sizeof(psinfo));
	n += unit_core_note(core + off + n, 0x53494749, si, sizeof(si));
	ph[1].p_offset = off;
	ph[1].p_filesz = n;
	unit_core_ehdr(core, PHNUM);
	memcpy(core + sizeof(Elf64_Ehdr), ph, sizeof(ph));
	return off + n;
}

START_TEST(test_siginfo)
{
	struct core_signal s;
	size_t len = make_core();

	ck_assert_int_eq(elfcore_siginfo(core, len, &s), 0);
	ck_assert_int_eq(s.signo, SIGSEGV);
	ck_assert_int_eq(s.code, 1);
	/* Cut inside the SIGINFO note: not there yet. Cut before the notes, or inside the headers: nothing. */
	ck_assert_int_eq(elfcore_siginfo(core, len - 4, &s), -ENOENT);
	ck_assert_int_eq(elfcore_siginfo(core, sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr), &s), -ENOENT);
	ck_assert_int_eq(elfcore_siginfo(core, sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), &s), -EBADMSG);
	ck_assert_int_eq(elfcore_siginfo(core, 10, &s), -EBADMSG);
}
END_TEST

/* The thread from the first NT_PRSTATUS, only for the pid the process has in its own namespace. */
START_TEST(test_thread)
{
	size_t len = make_core();
	pid_t tid = 0;

	ck_assert_int_eq(elfcore_thread(core, len, 4242, &tid), 0);
	ck_assert_int_eq(tid, 4243);
	/* Another pid namespace's view: no thread rather than one of another namespace. */
	tid = 0;
	ck_assert_int_eq(elfcore_thread(core, len, 77, &tid), -ENOENT);
	ck_assert_int_eq(tid, 0);
	/* Cut before PRPSINFO; a 32-bit core. */
	ck_assert_int_eq(elfcore_thread(core, sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr) + 12 + 8 + 336, 4242, &tid),
			 -ENOENT);
	core[EI_CLASS] = ELFCLASS32;
	ck_assert_int_eq(elfcore_thread(core, len, 4242, &tid), -ENOENT);
}
END_TEST

START_TEST(test_malformed)
{
	struct core_signal s;
	size_t len = make_core();
	Elf64_Phdr ph;

	/* A note segment that claims to start far beyond the bytes, or a note whose size runs past them. */
	memcpy(&ph, core + sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), sizeof(ph));
	ph.p_offset = UINT64_MAX - 8;
	memcpy(core + sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), &ph, sizeof(ph));
	ck_assert_int_eq(elfcore_siginfo(core, len, &s), -ENOENT);
	len = make_core();
	memset(core + sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr) + 4, 0xff, 4);
	ck_assert_int_eq(elfcore_siginfo(core, len, &s), -ENOENT);
	/* Not an ELF file at all. */
	memcpy(core, "\x7f" "ELG", 4);
	ck_assert_int_eq(elfcore_siginfo(core, len, &s), -EBADMSG);
}
END_TEST

/* The core's size: where its last segment ends; unknown while its headers are not all at hand. */
START_TEST(test_size)
{
	size_t len = make_core();
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_offset = 1 << 20, .p_filesz = 5 << 20 };
	uint64_t size = 0;

	ck_assert_int_eq(elfcore_size(core, len, &size), 0);
	ck_assert_uint_eq(size, len);
	memcpy(core + sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr), &ph, sizeof(ph));
	ck_assert_int_eq(elfcore_size(core, len, &size), 0);
	ck_assert_uint_eq(size, 6 << 20);
	ck_assert_int_eq(elfcore_size(core, sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr), &size), -ERANGE);
	/* A segment whose end wraps around is no core. */
	ph.p_offset = UINT64_MAX - 8;
	memcpy(core + sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr), &ph, sizeof(ph));
	ck_assert_int_eq(elfcore_size(core, len, &size), -EBADMSG);
	/* More than 65534 headers: their count is in a section header, which is not read. */
	((Elf64_Ehdr *)core)->e_phnum = PN_XNUM;
	ck_assert_int_eq(elfcore_size(core, len, &size), -ERANGE);
	ck_assert_int_eq(elfcore_size(core, 10, &size), -EBADMSG);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("elfcore");
	TCase *tc = tcase_create("elfcore");

	tcase_add_test(tc, test_siginfo);
	tcase_add_test(tc, test_size);
	tcase_add_test(tc, test_thread);
	tcase_add_test(tc, test_malformed);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
