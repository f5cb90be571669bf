/*
 * pipemode.c: a crash as kernel.core_pattern's pipe handler gets it: its facts as arguments (the specifiers of
 * KARGS_SPECIFIERS), its core on fd 0, the process held by the kernel until fd 0 is closed. Builds the crash and
 * hands it to capture.c.
 */
#include <stdio.h>
#include <unistd.h>

#include "capture.h"

/*
 * One crash, from the kernel's arguments to its journal entries. 0 when the crash was handled as the policy says
 * (stored, truncated, skipped, suppressed), or the -errno that kept it from being stored; logged either way.
 */
/* Pipe mode's step: the admission, then the core from the pipe. 0, or -errno. */
static int admit_and_store(struct crash *cr)
{
	int r = crash_admit(cr);

	return r > 0 ? crash_store(cr) : r;
}

int capture_pipe(const char *config, bool named, int argc, char **argv, char *entry, size_t len)
{
	static struct crash cr;
	int r;

	crash_init(&cr, STDIN_FILENO, config, named);
	(void) kargs_parse(argc, argv, &cr.given.k, &cr.given.kd);
	crash_read_process(&cr);
	r = crash_handle(&cr, admit_and_store, NULL);
	(void) snprintf(entry, len, "%s", cr.o.entry_id);
	return r;
}
