/*
 * coresink-bench.c: the program, which benchmark it runs: on pipe input (pipe/, the default), on real crashes
 * (crash/, --crash), or, for the crash benchmark's socket-mode ceiling, the kernel's core drained into /dev/null
 * (--drain-socket). What both measure with, and what the unit tests share, is shared/.
 */
#include <string.h>

#include "base.h"
#include "bench.h"
#include "crash.h"
#include "nullsock.h"

int main(int argc, char **argv)
{
	diag_program("coresink-bench");
	if (argc > 1 && strcmp(argv[1], "--crash") == 0)
		return crash_main(argc - 1, argv + 1);
	if (argc > 2 && argc < 5 && strcmp(argv[1], "--drain-socket") == 0)
		return drain_socket(argv[2], argc == 4 && strcmp(argv[3], "read") == 0);
	return pipe_main(argc, argv);
}
