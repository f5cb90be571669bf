/*
 * pipemode.c: a crash as kernel.core_pattern's pipe handler gets it: its facts as arguments (the specifiers of
 * KARGS_SPECIFIERS), its core on fd 0, the process held by the kernel until fd 0 is closed. Builds the crash and
 * hands it to capture.c.
 */
#include <unistd.h>

#include "capture.h"

/*
 * One crash, from the kernel's arguments to its journal entries. 0 when the crash was handled as the policy says
 * (stored, truncated, skipped, suppressed), or the -errno that kept it from being stored; logged either way.
 */
int capture_pipe(const char *config, bool named, int argc, char **argv)
{
	static struct crash cr;
	int r;

	crash_init(&cr, STDIN_FILENO, config, named);
	(void) kargs_parse(argc, argv, &cr.k, &cr.kd);
	crash_read_process(&cr);
	r = crash_admit(&cr);
	if (r > 0)
		r = crash_store(&cr);
	crash_finish(&cr);
	return crash_status(&cr, r);
}
