/*
 * fetchstep.c: coresink --fetch-debuginfo CACHE URLS TIMEOUT_MS MAX_USE KEEP_FREE ROOM KIND:ID..., the fetch step's
 * program, which the handler (or the door to the network) runs as coresink-debuginfod in the sandbox's exec mode
 * (src/lib/sandbox/fetch.c), with nothing of the crash: its command line read, then the step
 * (src/lib/sandbox/debuginfod.c). Exit 0 when it could ask, 1 when it could not start.
 */
#include <stdio.h>

#include "base.h"
#include "fetchstep.h"
#include "sandbox.h"

int fetch_step_main(int argc, char **argv)
{
	struct fetch_step_args a = { 0 };

	if (argc < 7 || parse_u64(argv[2], &a.timeout_ms) < 0 || parse_u64(argv[3], &a.max_use) < 0 ||
	    parse_u64(argv[4], &a.keep_free) < 0 || parse_u64(argv[5], &a.room) < 0)
		return fprintf(stderr, "usage: coresink --fetch-debuginfo CACHE URLS TIMEOUT_MS MAX_USE KEEP_FREE ROOM "
			       "KIND:ID...\n"), 1;
	a.cache = argv[0];
	a.urls = argv[1];
	return fetch_step(&a, argv + 6, argc - 6);
}
