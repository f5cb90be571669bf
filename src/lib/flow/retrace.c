/*
 * retrace.c: the analysis of a stored core again (coresinkctl retrace, coresink --retrace), with the debug info at
 * hand now: a -dbgsym package installed since, DebuginfodURLs= set or its server back. The same steps as at the
 * crash (entry.c): the fetch step, then the analysis in its sandbox, as the analysis user whoever's the crash was
 * (the process is gone, its credentials unproven); its modules read from their paths, each taken only with the
 * build-id the core names; then the signature, which is not counted again: it is the same crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture-internal.h"
#include "retrace.h"

/*
 * Analyses the core of in with the configuration of config (named: given on the command line) into a and s. 0, or
 * -errno where no analysis could run (a then says why, where it can).
 */
int crash_retrace(const char *config, bool named, const struct retrace_in *in, struct analysis *a,
		  struct signature *s)
{
	struct crash *cr = calloc(1, sizeof(*cr));

	*a = (struct analysis) { 0 };
	if (!cr)
		return -ENOMEM;
	crash_init(cr, -1, config, named);
	cr->c.stack_trace = true;
	cr->held.corefd = in->corefd;
	cr->o.st.bytes = in->size;
	cr->given.k.signal = in->signal;
	(void) snprintf(cr->given.pi.exe, sizeof(cr->given.pi.exe), "%s", in->exe);
	/* The core in the journal (Storage=journal) was never a file: the analysis reads the copy. */
	(void) snprintf(cr->o.path, sizeof(cr->o.path), "%s", in->path[0] ? in->path : "(journal)");
	cr->held.dirfd = open(cr->c.directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	crash_analyse(cr);
	signature_make(cr->a.trace, cr->a.canon, in->signal, in->exe, s);
	*a = cr->a;
	fd_close(&cr->held.dirfd);
	free(cr);
	return a->trace || a->why[0] ? 0 : -EIO;
}
