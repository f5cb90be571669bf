/*
 * maplib: mapprog's library (t-mapped): lib_a calls lib_b, which calls back cb, or without one dies of SIGSEGV
 * itself (a crash inside a C library called from Python's ctypes).
 */
#ifndef VARIANT
#define VARIANT 1
#endif

#if VARIANT != 1
__attribute__((noinline)) int lib_padding(int x)
{
	return x * 5 + VARIANT;
}
#endif

__attribute__((noinline)) void lib_b(void (*cb)(void))
{
	if (cb)
		cb();
	else
		/* cppcheck-suppress nullPointer ; the crash this library exists for */
		*(volatile int *)0 = VARIANT;
}

__attribute__((noinline)) void lib_a(void (*cb)(void))
{
	lib_b(cb);
	__asm__ volatile("");
}
