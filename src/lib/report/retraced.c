/*
 * retraced.c: the entry of a crash analysed again (coresinkctl retrace). Not a crash entry (its MESSAGE_ID is
 * coresink's own: coredumpctl lists the crash once), it names the crash's entry (CORESINK_RETRACE_OF, its
 * CORESINK_ENTRY) and repeats the fields journalctl matches a crash by (COREDUMP_PID, _EXE, _COMM, _FILENAME,
 * _TIMESTAMP), then gives the new trace in MESSAGE as the crash entry does, what was fetched for it, and its
 * signature with its keys: `coresink --summary` counts the crash once and joins the two signatures (summary.c).
 * Sent as root, with coresink's SYSLOG_IDENTIFIER, as every entry coresink writes: origin.c trusts it as one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "report.h"
#include "report-internal.h"
#include "retraced.h"

int report_retrace(const struct retrace_of *of, const struct analysis *a, const struct signature *s)
{
	char sentence[512];
	struct fields f;
	int r;

	fields_init(&f, LOG_INFO);
	fields_add(&f, "MESSAGE_ID=" CORESINK_RETRACE_MESSAGE_ID);
	report_add_line(&f, "CORESINK_RETRACE_OF", of->entry_id);
	report_add_line(&f, "CORESINK_RETRACE_OF_SIGNATURE", of->signature);
	fields_add(&f, "CORESINK_RETRACE_OF_USEC=%" PRIu64, of->usec);
	fields_add(&f, "COREDUMP_PID=%d", (int)of->pid);
	fields_add(&f, "COREDUMP_UID=%u", (unsigned)of->uid);
	fields_add(&f, "COREDUMP_SIGNAL=%d", of->signal);
	if (of->timestamp)
		fields_add(&f, "COREDUMP_TIMESTAMP=%" PRIu64, of->timestamp);
	report_add_line(&f, "COREDUMP_COMM", of->comm);
	report_add_line(&f, "COREDUMP_EXE", of->exe);
	report_add_line(&f, "COREDUMP_FILENAME", of->filename);
	report_add_line(&f, "COREDUMP_HOSTNAME", of->hostname);
	report_analysis_fields(&f, a);
	fields_add(&f, "CORESINK_SIGNATURE=%s", s->hex);
	report_add_line(&f, "CORESINK_SIGNATURE_TEXT", s->text);
	fields_add(&f, "CORESINK_SIGNATURE_FROM=%s", s->from_trace ? "trace" :
		   "executable (no frame of the crashing thread was known: weaker)");
	if (s->keys[0])
		fields_add(&f, "CORESINK_SIGNATURE_KEYS=%s", s->keys);
	(void) snprintf(sentence, sizeof(sentence), "Process %d (%.64s) of user %u: its crash analysed again, with the "
			"debug info at hand now%s%s.", (int)of->pid, of->comm, (unsigned)of->uid,
			strcmp(of->signature, s->hex) == 0 ? ": the same signature" : ": signature was ",
			strcmp(of->signature, s->hex) == 0 ? "" : of->signature[0] ? of->signature : "none");
	if (a->trace)
		report_message_with_trace(&f, sentence, a->trace);
	else
		report_add_line(&f, "MESSAGE", sentence);
	r = journal_send(&f);
	fields_free(&f);
	return r;
}
