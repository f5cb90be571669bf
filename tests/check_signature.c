/*
 * check_signature.c: the crash signature read from stack traces in the format stacktrace.c writes: the abort,
 * assert, C++ terminate and Rust panic machinery skipped, the same bug the same signature wherever it was loaded,
 * another bug another one, and the weaker one where no frame is known; version 2's canonical names, and its keys:
 * the same for the same build whatever debug info named its frames.
 */
#include <signal.h>

#include "analyse/signature.h"
#include "unit.h"

#define MODULES "Module prog with build-id 1111111111111111111111111111111111111111\n" \
		"Module libc.so.6 from deb glibc-2.36-9+deb12u13.amd64\n" \
		"Module libstdc++.so.6 with build-id 2222222222222222222222222222222222222222\n"

/* A trace of one or two threads; the first, the crashing one, with the frames given. */
static const char *trace(const char *frames)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf), MODULES "\nStack trace of thread 100:\n%s\nStack trace of thread 101:\n"
		 "#0  0x00007f0000001000 other_thread_fn (prog + 0x9999)\n", frames);
	return buf;
}

static struct signature make(const char *frames, int sig)
{
	struct signature s;

	signature_make(trace(frames), NULL, sig, "/usr/bin/prog", &s);
	return s;
}

START_TEST(test_null_dereference)
{
	struct signature s = make("#0  0x000055d1c0a0133d crash_here (prog + 0x133d)\n"
				  "#1  0x000055d1c0a01400 level1 (prog + 0x1400)\n"
				  "#2  0x000055d1c0a01500 main (prog + 0x1500)\n"
				  "#3  0x00007f3a11e27305 __libc_start_main_impl (libc.so.6 + 0x27305)\n", SIGSEGV);

	ck_assert_str_eq(s.text, "2;SIGSEGV;prog!crash_here;prog!level1;prog!main");
	ck_assert(s.from_trace);
	ck_assert_uint_eq(s.frames, 3);
	ck_assert_uint_eq(strlen(s.hex), 16);
}
END_TEST

/* Loaded elsewhere (ASLR, another run, another host): the same signature. */
START_TEST(test_stable_across_addresses)
{
	struct signature a = make("#0  0x000055d1c0a0133d crash_here (prog + 0x133d)\n"
				  "#1  0x000055d1c0a01400 level1 (prog + 0x1400)\n", SIGSEGV);
	struct signature b = make("#0  0x0000561234a0133d crash_here (prog + 0x133d)\n"
				  "#1  0x0000561234a01400 level1 (prog + 0x1400)\n", SIGSEGV);

	ck_assert_str_eq(a.hex, b.hex);
}
END_TEST

/* Another function, another signal: another bug. */
START_TEST(test_other_bug_other_signature)
{
	struct signature a = make("#0  0x1 crash_here (prog + 0x133d)\n#1  0x2 level1 (prog + 0x1400)\n", SIGSEGV);
	struct signature b = make("#0  0x1 divide (prog + 0x1200)\n#1  0x2 level1 (prog + 0x1400)\n", SIGSEGV);
	struct signature c = make("#0  0x1 crash_here (prog + 0x133d)\n#1  0x2 level1 (prog + 0x1400)\n", SIGBUS);

	ck_assert_str_ne(a.hex, b.hex);
	ck_assert_str_ne(a.hex, c.hex);
}
END_TEST

START_TEST(test_assert_skipped)
{
	struct signature s = make("#0  0x1 __pthread_kill_implementation (libc.so.6 + 0x8aebc)\n"
				  "#1  0x2 raise (libc.so.6 + 0x3cfb2)\n#2  0x3 abort (libc.so.6 + 0x27472)\n"
				  "#3  0x4 __assert_fail_base (libc.so.6 + 0x27395)\n"
				  "#4  0x5 __assert_fail (libc.so.6 + 0x35eb2)\n#5  0x6 check_input (prog + 0x1189)\n"
				  "#6  0x7 main (prog + 0x11c0)\n", SIGABRT);

	ck_assert_str_eq(s.text, "2;SIGABRT;prog!check_input;prog!main");
}
END_TEST

START_TEST(test_cxx_terminate_skipped)
{
	struct signature s = make("#0  0x1 __pthread_kill_implementation (libc.so.6 + 0x8aebc)\n"
				  "#1  0x2 raise (libc.so.6 + 0x3cfb2)\n#2  0x3 abort (libc.so.6 + 0x27472)\n"
				  "#3  0x4 _ZN9__gnu_cxx27__verbose_terminate_handlerEv (libstdc++.so.6 + 0x9a9ff)\n"
				  "#4  0x5 _ZN10__cxxabiv111__terminateEPFvvE (libstdc++.so.6 + 0xa60ca)\n"
				  "#5  0x6 _ZSt9terminatev (libstdc++.so.6 + 0xa6135)\n"
				  "#6  0x7 __cxa_throw (libstdc++.so.6 + 0xa6388)\n"
				  "#7  0x8 _Z7do_workv (prog + 0x1250)\n#8  0x9 main (prog + 0x1290)\n", SIGABRT);

	ck_assert_str_eq(s.text, "2;SIGABRT;prog!_Z7do_workv;prog!main");
}
END_TEST

/* Debian's libstdc++ has no symbol for its terminate handler: its unnamed frames above the machinery go too. */
START_TEST(test_unnamed_machinery_skipped)
{
	struct signature s = make("#0  0x1 __pthread_kill_implementation (libc.so.6 + 0x8aebc)\n"
				  "#1  0x2 raise (libc.so.6 + 0x3cfb2)\n#2  0x3 abort (libc.so.6 + 0x27472)\n"
				  "#3  0x4 n/a (libstdc++.so.6 + 0x9d919)\n#4  0x5 n/a (libstdc++.so.6 + 0xa8e1a)\n"
				  "#5  0x6 _ZSt9terminatev (libstdc++.so.6 + 0xa8e85)\n"
				  "#6  0x7 __cxa_throw (libstdc++.so.6 + 0xa90d8)\n"
				  "#7  0x8 _ZL7do_worki (prog + 0x11c8)\n#8  0x9 main (prog + 0x1201)\n", SIGABRT);

	ck_assert_str_eq(s.text, "2;SIGABRT;prog!_ZL7do_worki;prog!main");
}
END_TEST

START_TEST(test_rust_panic_skipped)
{
	struct signature s = make("#0  0x1 __pthread_kill_implementation (libc.so.6 + 0x8aebc)\n"
				  "#1  0x2 raise (libc.so.6 + 0x3cfb2)\n#2  0x3 abort (libc.so.6 + 0x27472)\n"
				  "#3  0x4 _ZN3std3sys3pal4unix14abort_internal17h8b1c2d3e4f5a6b7cE (prog + 0x4a2f9)\n"
				  "#4  0x5 _ZN3std7process5abort17h0123456789abcdefE (prog + 0x4a309)\n"
				  "#5  0x6 _ZN3std9panicking20rust_panic_with_hook17h1111E (prog + 0x4b000)\n"
				  "#6  0x7 _ZN4core9panicking9panic_fmt17h2222E (prog + 0x4c000)\n"
				  "#7  0x8 _ZN4core6option13unwrap_failed17h3333E (prog + 0x4c100)\n"
				  "#8  0x9 _ZN3std2rt12__rust_abort17h5555E (prog + 0x4d000)\n"
				  "#9  0xa _ZN11panic_abort18__rust_start_panic5abort17h6666E (prog + 0x4e000)\n"
				  "#10 0xb _ZN4core6option13expect_failed17h7777E (prog + 0x4c200)\n"
				  "#11 0xc _ZN4prog5parse17h4444E (prog + 0x7000)\n"
				  "#12 0xd _ZN4prog4main17h8888E (prog + 0x7100)\n"
				  /* Below main, a name like the machinery's is not it. */
				  "#13 0xe _ZN3std3sys9backtrace28__rust_begin_short_backtrace17h9999E (prog + 0x7200)\n"
				  "#14 0xf _ZN3std2rt10lang_start17haaaaE (prog + 0x7300)\n", SIGABRT);

	ck_assert_str_eq(s.text, "2;SIGABRT;prog!_ZN4prog5parse17h4444E;prog!_ZN4prog4main17h8888E;"
			 "prog!_ZN3std3sys9backtrace28__rust_begin_short_backtrace17h9999E");
}
END_TEST

/* Rust's v0 mangling: the panic machinery is known by its path segments. */
START_TEST(test_rust_v0_skipped)
{
	struct signature s = make("#0  0x1 abort (libc.so.6 + 0x27472)\n"
				  "#1  0x2 _RNvNtNtCs1a_3std3sys3pal14abort_internal (prog + 0x4a2f9)\n"
				  "#2  0x3 _RNvCsfLfy6EI15iL_7___rustc12___rust_abort (prog + 0x4a300)\n"
				  "#3  0x3 _RNvCsfLfy6EI15iL_7___rustc10rust_panic (prog + 0x4a400)\n"
				  "#3  0x3 _RNvNtCs1a_4core9panicking9panic_fmt (prog + 0x4c000)\n"
				  "#3  0x3 _RNvNtCsgEmfK2I1SDS_4core6option13expect_failed (prog + 0x4c100)\n"
				  "#3  0x4 _RNvCs2b_4prog5parse (prog + 0x7000)\n", SIGABRT);

	ck_assert_str_eq(s.text, "2;SIGABRT;prog!_RNvCs2b_4prog5parse");
}
END_TEST

/* A frame with no name is the module's build-id (or package) and offset; one in no module is left out. */
START_TEST(test_unnamed_frames)
{
	struct signature s = make("#0  0x00007ffd1 n/a (n/a + 0x0)\n#1  0x1 n/a (prog + 0x1234)\n"
				  "#2  0x2 n/a (libc.so.6 + 0x2a)\n#3  0x3 main (prog + 0x1500)\n", SIGSEGV);

	ck_assert_str_eq(s.text, "2;SIGSEGV;prog@1111111111111111111111111111111111111111+0x1234;"
			 "libc.so.6@glibc-2.36-9+deb12u13.amd64+0x2a;prog!main");
}
END_TEST

/* No trace, or no frame of one: the executable and the signal, marked as weaker. */
START_TEST(test_weaker_without_frames)
{
	struct signature s, t;

	signature_make(NULL, NULL, SIGSEGV, "/usr/bin/prog", &s);
	ck_assert(!s.from_trace);
	ck_assert_str_eq(s.text, "2;SIGSEGV;exe:prog");
	signature_make(trace("#0  0x1 n/a (n/a + 0x0)\n"), NULL, SIGSEGV, "/srv/root/usr/bin/prog", &t);
	ck_assert(!t.from_trace);
	ck_assert_str_eq(t.text, "2;SIGSEGV;exe:1111111111111111111111111111111111111111");
}
END_TEST

/* The hash is 64-bit FNV-1a of the text, as docs/signatures.md says, for other tools to compute it. */
START_TEST(test_hash_documented)
{
	struct signature s;

	signature_make(NULL, NULL, SIGSEGV, "a", &s);
	ck_assert_str_eq(s.text, "2;SIGSEGV;exe:a");
	/* python3 -c 'h=0xcbf29ce484222325
	 * for b in b"2;SIGSEGV;exe:a": h=((h^b)*0x100000001b3)%2**64
	 * print("%016x"%h)' */
	ck_assert_str_eq(s.hex, "79064e708def0500");
}
END_TEST

/* The canonical names: one name at one address, whichever the debug info or the symbol table gave. */
START_TEST(test_canonical_names)
{
	const char *frames = "#0  0x1 crash_here (prog + 0x133d)\n#1  0x2 main (prog + 0x1500)\n"
			     "#2  0x3 __libc_start_call_main (libc.so.6 + 0x2724a)\n"
			     "#3  0x4 __libc_start_main_impl (libc.so.6 + 0x27305)\n";
	const char *dynsym = "#0  0x1 crash_here (prog + 0x133d)\n#1  0x2 main (prog + 0x1500)\n"
			     "#2  0x3 n/a (libc.so.6 + 0x2724a)\n"
			     "#3  0x4 __libc_start_main@@GLIBC_2.34 (libc.so.6 + 0x27305)\n";
	struct signature a, b;

	signature_make(trace(frames), "0 s crash_here\n1 s main\n2 s __libc_start_call_main\n3 d __libc_start_main\n",
		       SIGSEGV, "/usr/bin/prog", &a);
	signature_make(trace(dynsym), "0 s crash_here\n1 s main\n3 d __libc_start_main\n", SIGSEGV, "/usr/bin/prog",
		       &b);
	ck_assert_str_eq(a.text, "2;SIGSEGV;prog!crash_here;prog!main;libc.so.6!__libc_start_call_main");
	ck_assert_str_eq(b.text, "2;SIGSEGV;prog!crash_here;prog!main;"
			 "libc.so.6@glibc-2.36-9+deb12u13.amd64+0x2724a");
	/* Named by the debug file or not at all: the same keys. */
	ck_assert_str_eq(a.keys_text, "k2;SIGSEGV;prog@1111111111111111111111111111111111111111+0x133d;"
			 "prog@1111111111111111111111111111111111111111+0x1500;"
			 "libc.so.6@glibc-2.36-9+deb12u13.amd64+0x2724a");
	ck_assert_str_eq(a.keys, b.keys);
	/* Without canonical names, the names shown stand, without their version. */
	signature_make(trace("#0  0x4 __libc_start_main@@GLIBC_2.34 (libc.so.6 + 0x27305)\n"), NULL, SIGSEGV, "",
		       &a);
	ck_assert_str_eq(a.text, "2;SIGSEGV;libc.so.6!__libc_start_main");
	ck_assert_str_eq(a.keys, "");
}
END_TEST

/* A stripped program, then its debug file fetched: two signatures, one set of keys; another build, other keys. */
START_TEST(test_keys_join_debug_info)
{
	const char *stripped = "#0  0x1 n/a (prog + 0x133d)\n#1  0x2 n/a (prog + 0x1400)\n"
			       "#2  0x3 n/a (prog + 0x1500)\n#3  0x4 __libc_start_main (libc.so.6 + 0x27305)\n";
	const char *named = "#0  0x1 crash_here (prog + 0x133d)\n#1  0x2 level1 (prog + 0x1400)\n"
			    "#2  0x3 main (prog + 0x1500)\n#3  0x4 __libc_start_main_impl (libc.so.6 + 0x27305)\n";
	const char *rebuilt = "#0  0x1 crash_here (prog + 0x1345)\n#1  0x2 level1 (prog + 0x1410)\n"
			      "#2  0x3 main (prog + 0x1520)\n";
	struct signature a, b, c;

	signature_make(trace(stripped), "3 d __libc_start_main\n", SIGSEGV, "/usr/bin/prog", &a);
	signature_make(trace(named), "0 s crash_here\n1 s level1\n2 s main\n3 d __libc_start_main\n", SIGSEGV,
		       "/usr/bin/prog", &b);
	signature_make(trace(rebuilt), "0 s crash_here\n1 s level1\n2 s main\n", SIGSEGV, "/usr/bin/prog", &c);
	ck_assert_str_ne(a.hex, b.hex);
	ck_assert_str_eq(b.text, "2;SIGSEGV;prog!crash_here;prog!level1;prog!main");
	ck_assert_uint_eq(strlen(a.keys), 16);
	ck_assert_str_eq(a.keys, b.keys);
	/* Rebuilt: the names keep the signature, the offsets change the keys. */
	ck_assert_str_eq(b.hex, c.hex);
	ck_assert_str_ne(b.keys, c.keys);
}
END_TEST

/* glibc's malloc abort without libc's debug file: its unnamed internals under abort() are no part of it. */
START_TEST(test_machinery_internals_skipped)
{
	const char *stripped = "#0  0x1 n/a (libc.so.6 + 0x8aebc)\n#1  0x2 raise (libc.so.6 + 0x3cfb2)\n"
			       "#2  0x3 abort (libc.so.6 + 0x27472)\n#3  0x4 n/a (libc.so.6 + 0x28170)\n"
			       "#4  0x5 n/a (libc.so.6 + 0x95a56)\n#5  0x6 n/a (libc.so.6 + 0x97c3d)\n"
			       "#6  0x7 free (libc.so.6 + 0x9a4a3)\n#7  0x8 free_twice (prog + 0x1189)\n";
	struct signature s;

	signature_make(trace(stripped), "1 d raise\n2 d abort\n6 d free\n7 s free_twice\n", SIGABRT, "", &s);
	ck_assert_str_eq(s.text, "2;SIGABRT;libc.so.6!free;prog!free_twice");
	ck_assert_str_eq(s.keys_text, "k2;SIGABRT;libc.so.6@glibc-2.36-9+deb12u13.amd64+0x9a4a3;"
			 "prog@1111111111111111111111111111111111111111+0x1189");
}
END_TEST

/* A frame whose module has no id would join every build's crashes at that offset: no keys then. */
START_TEST(test_no_keys_without_module_id)
{
	struct signature s;

	signature_make("Module anon without build-id\n\nStack trace of thread 1:\n#0  0x1 n/a (anon + 0x10)\n",
		       "", SIGSEGV, "", &s);
	ck_assert(s.from_trace);
	ck_assert_str_eq(s.text, "2;SIGSEGV;anon@+0x10");
	ck_assert_str_eq(s.keys, "");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("signature");
	TCase *tc = tcase_create("signature");

	tcase_add_test(tc, test_null_dereference);
	tcase_add_test(tc, test_stable_across_addresses);
	tcase_add_test(tc, test_other_bug_other_signature);
	tcase_add_test(tc, test_assert_skipped);
	tcase_add_test(tc, test_cxx_terminate_skipped);
	tcase_add_test(tc, test_unnamed_machinery_skipped);
	tcase_add_test(tc, test_rust_panic_skipped);
	tcase_add_test(tc, test_rust_v0_skipped);
	tcase_add_test(tc, test_unnamed_frames);
	tcase_add_test(tc, test_weaker_without_frames);
	tcase_add_test(tc, test_hash_documented);
	tcase_add_test(tc, test_canonical_names);
	tcase_add_test(tc, test_keys_join_debug_info);
	tcase_add_test(tc, test_machinery_internals_skipped);
	tcase_add_test(tc, test_no_keys_without_module_id);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
