/*
 * bugs.c: a program with several bugs, one per argument, for the crash signature tests (t-signature): a null
 * dereference in two different places, a failed assert, an abort. Built without optimisation, with symbols, by
 * the test itself (static too, for a container with nothing else in its root).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The bugs are the point: a store through NULL, which the analysers are told is meant. */
static void __attribute__((noinline)) store_through(int *p)
{
	/* cppcheck-suppress [nullPointer, ctunullpointer] ; the crash this program exists for */
	*p = 1;
}

static void __attribute__((noinline)) null_bug(void)
{
	store_through(NULL);
}

static void __attribute__((noinline)) other_bug(void)
{
	volatile int *p = NULL;

	/* cppcheck-suppress nullPointer ; the crash this program exists for */
	*p = 2;
}

static void __attribute__((noinline)) check_input(int x)
{
	assert(x > 0);
}

static void __attribute__((noinline)) give_up(void)
{
	abort();
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "null";

	if (strcmp(what, "other") == 0)
		other_bug();
	else if (strcmp(what, "assert") == 0)
		check_input(argc - 3);
	else if (strcmp(what, "abort") == 0)
		give_up();
	else
		null_bug();
	return 0;
}
