/*
 * report.c: the one journal entry each crash gets, with the COREDUMP_* fields coredumpctl reads, and the entry
 * for configuration and argument problems.
 */
#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "base.h"
#include "journal.h"
#include "origin.h"
#include "report.h"
#include "report-internal.h"

static void signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;

	if (abbrev)
		(void) snprintf(buf, len, "SIG%s", abbrev);
	else
		(void) snprintf(buf, len, "%d", sig);
}

/*
 * Adds NAME=value with value escaped (see escape.c): every string the crashing process or its /proc directory
 * gives goes through here, so that no entry can break journalctl or coredumpctl. Empty values are left out.
 */
static void add_text(struct fields *f, const char *name, const char *value, unsigned flags)
{
	char *e;

	if (!value || !value[0])
		return;
	e = escape_dup(value, flags);
	if (e)
		fields_add(f, "%s=%s", name, e);
	free(e);
}

void report_add_line(struct fields *f, const char *name, const char *value)
{
	add_text(f, name, value, ESCAPE_BACKSLASH);
}

static void add_process_fields(struct fields *f, const struct kargs *k, const struct outcome *o, const char *sig)
{
	fields_add(f, "MESSAGE_ID=" CORESINK_MESSAGE_ID);
	fields_add(f, "COREDUMP_PID=%d", (int)k->pid);
	if (k->tid > 0)
		fields_add(f, "COREDUMP_TID=%d", (int)k->tid);
	fields_add(f, "COREDUMP_UID=%u", (unsigned)k->uid);
	fields_add(f, "COREDUMP_GID=%u", (unsigned)k->gid);
	fields_add(f, "COREDUMP_SIGNAL=%d", k->signal);
	fields_add(f, "COREDUMP_SIGNAL_NAME=%s", sig);
	if (o->have_siginfo)
		fields_add(f, "COREDUMP_CODE=%d", o->siginfo.code);
	fields_add(f, "COREDUMP_DUMPABLE=%d", (int)k->dumpmode);
	fields_add(f, "COREDUMP_TIMESTAMP=%llu", (unsigned long long)k->time * 1000000ULL);
	fields_add(f, "COREDUMP_RLIMIT=%llu", (unsigned long long)k->rlimit);
	report_add_line(f, "COREDUMP_HOSTNAME", k->hostname);
	if (!k->hostname[0])
		report_add_line(f, "CORESINK_HOSTNAME", k->hostname_why);
	report_add_line(f, "COREDUMP_COMM", k->comm);
	report_add_line(f, "COREDUMP_EXE", o->exe);
}


/* What a minimal core kept, beside what the kernel dumped; or why the whole core was kept instead. */
static void add_core_content(struct fields *f, const struct outcome *o)
{
	const struct minicore_stats *m = &o->mini;

	if (!o->minimal_wanted || o->st.input == 0)
		return;
	if (!m->minimal) {
		fields_add(f, "CORESINK_CORE=full: no minimal core: %s", m->why ? m->why : "?");
		return;
	}
	fields_add(f, "CORESINK_CORE=minimal: %llu of %llu bytes; %u thread stacks (%u cut), %llu bytes; %llu bytes of "
		   "mapped files; %u modules listed; %llu bytes of the module list and thread control blocks%s%s",
		   (unsigned long long)o->st.input,
		   (unsigned long long)m->input, m->threads, m->stacks_cut, (unsigned long long)m->stack_bytes,
		   (unsigned long long)m->file_bytes, m->modules, (unsigned long long)m->linkmap_bytes,
		   m->linkmap_error ? "; the module list: " : "", m->linkmap_error ? strerror(-m->linkmap_error) : "");
}

/*
 * EarlyStacks= (flow/stacks.c): the stacks read as the dump began, what that cost the release, and what became of
 * them: given to a cut core, not needed by a whole one, or why neither.
 */
static void add_stacks_field(struct fields *f, const struct outcome *o)
{
	const struct rescue_stats *s = &o->stacks;
	char bound[160] = "", fate[160];

	if (!s->tried)
		return;
	if (!s->read) {
		fields_add(f, "CORESINK_STACKS=not read as the dump began: %s", s->why ? s->why : "the dump ended first");
		return;
	}
	if (s->stacks_cut)
		(void) snprintf(bound, sizeof(bound), "; %u longer than %llu bytes kept to that, from the stack pointer "
				"(MinimalStackSizeMax=, less for many threads)", s->stacks_cut,
				(unsigned long long)s->stack_each);
	if (s->added && s->replaced)
		(void) snprintf(fate, sizeof(fate), "kept in place of the core's last %llu bytes, with program headers "
				"that say so", (unsigned long long)s->replaced);
	else if (s->added)
		(void) snprintf(fate, sizeof(fate), "added after the cut: %llu bytes, with program headers that say so",
				(unsigned long long)s->added);
	else if (s->traced)
		(void) snprintf(fate, sizeof(fate), "the stack trace's core: %llu bytes made of them in memory (the "
				"stored core is %s as it came)", (unsigned long long)s->traced,
				!o->st.encrypted ? "compressed" : o->st.compressed ? "compressed and encrypted" :
				"encrypted");
	else if (o->result != RESULT_TRUNCATED)
		(void) snprintf(fate, sizeof(fate), "not needed: %s", o->result == RESULT_STORED ? "the core is whole" :
				"no core was kept");
	else
		(void) snprintf(fate, sizeof(fate), "not added: %s", s->why ? s->why : "nothing past the cut");
	fields_add(f, "CORESINK_STACKS=%u threads' stacks read as the dump began, %llu bytes in %llu us%s; %s",
		   s->threads, (unsigned long long)s->bytes, (unsigned long long)s->us, bound, fate);
}

/*
 * A core compressed as it came: its size, zstd's level, and the chunks stored instead (write/engine.c, pace()):
 * where zstd fell behind the kernel, or the data did not shrink.
 */
static void add_compressed_field(struct fields *f, const struct engine_stats *z)
{
	char paced[192] = "";

	if (z->stored_chunks)
		(void) snprintf(paced, sizeof(paced), "; %u of %u chunks stored (raw blocks, %llu bytes): zstd fell "
				"behind the input %u times, a chunk did not shrink %u times", z->stored_chunks,
				z->stored_chunks + z->zstd_chunks, (unsigned long long)z->stored_in, z->paced_behind,
				z->paced_raw);
	fields_add(f, "CORESINK_COMPRESSED=zstd as it came, %llu bytes, level %d%s", (unsigned long long)z->bytes,
		   z->level, paced);
}

static void add_outcome_fields(struct fields *f, const struct outcome *o)
{
	fields_add(f, "CORESINK_RESULT=%s", result_to_string(o->result));
	fields_add(f, "CORESINK_SIZE=%llu", (unsigned long long)o->st.bytes);
	if (o->path[0])
		fields_add(f, "CORESINK_DISK=%llu", (unsigned long long)o->disk);
	if (o->path[0] && o->encrypted_to)
		fields_add(f, "CORESINK_ENCRYPTED=age v1, to %s", o->encrypted_to);
	if (o->path[0] && o->st.compressed)
		add_compressed_field(f, &o->zst);
	else if (o->path[0] && o->compress_us && !o->compress_error)
		fields_add(f, "CORESINK_COMPRESSED=zstd, %llu bytes in %llu us", (unsigned long long)o->zst.bytes,
			   (unsigned long long)o->compress_us);
	if (o->compress_error == -EDOM)
		fields_add(f, "CORESINK_COMPRESS=not worth it, stored uncompressed: its first %llu bytes, %llu of them "
			   "data (not holes), came to %llu", (unsigned long long)o->zst.input,
			   (unsigned long long)o->zst.input_data, (unsigned long long)o->zst.bytes);
	else if (o->compress_error)
		fields_add(f, "CORESINK_COMPRESS=failed, stored uncompressed: %s", strerror(-o->compress_error));
	if (o->st.holes)
		fields_add(f, "CORESINK_HOLES=%llu", (unsigned long long)o->st.holes);
	report_add_line(f, "CORESINK_RULE", o->rule);
	if (o->in_journal)
		fields_add(f, "CORESINK_STORAGE=journal");
	else if (o->storage_note[0])
		fields_add(f, "CORESINK_STORAGE=external: %s", o->storage_note);
	report_add_line(f, "CORESINK_ENTRY", o->entry_id);
	add_core_content(f, o);
	fields_add(f, "CORESINK_MODE=%s", o->socket ? "socket" : "pipe");
	if (o->rejected)
		fields_add(f, "CORESINK_REJECTED=1");
	if (o->signal_error)
		fields_add(f, "CORESINK_SIGNAL_UNKNOWN=its exit status was not seen: %s", strerror(-o->signal_error));
	fields_add(f, "CORESINK_STRATEGY=%s", strategy_to_string(o->strategy));
	fields_add(f, "CORESINK_CHUNKS=%lu", o->st.chunks);
	/* Data-moving syscalls, input side then file side: what the strategy cost. */
	fields_add(f, "CORESINK_CALLS=%lu %lu", o->st.in_calls, o->st.out_calls);
	/* Socket mode: where a thread took the core ahead of the writes (ReadAhead=; write/engine.c, copy_read_ahead()). */
	if (o->st.read_ahead)
		fields_add(f, "CORESINK_READ_AHEAD=by a thread from byte %llu of %llu", (unsigned long long)o->st.ahead_from,
			   (unsigned long long)o->st.input);
	/* What the disk's cache held: emptied as the core came (write/flush.c), and what the final sync waited for. */
	if (o->st.flushes || o->st.sync_us)
		fields_add(f, "CORESINK_FLUSH=%u during the copy, the final sync %llu us", o->st.flushes,
			   (unsigned long long)o->st.sync_us);
	report_add_line(f, "COREDUMP_FILENAME", o->path);
	report_add_line(f, "CORESINK_MODULES_KEPT", o->modules);
	if (o->result == RESULT_TRUNCATED)
		fields_add(f, "COREDUMP_TRUNCATED=1");
	if (o->result == RESULT_TRUNCATED || o->result == RESULT_DISCARDED)
		fields_add(f, "CORESINK_LIMIT=%s", limit_to_string(o->st.limit));
	/* The extent the core's headers announce: what a whole core would have held. */
	if (o->st.expected)
		fields_add(f, "CORESINK_EXTENT=%llu", (unsigned long long)o->st.expected);
	add_stacks_field(f, o);
	if (o->suppressed_exe || o->suppressed_all)
		fields_add(f, "CORESINK_SUPPRESSED=%u", o->suppressed_exe + o->suppressed_all);
	if (o->vacuumed)
		fields_add(f, "CORESINK_VACUUMED=%u", o->vacuumed);
	if (o->vacuumed_unsent)
		fields_add(f, "CORESINK_VACUUMED_UNSENT=%u", o->vacuumed_unsent);
	if (o->st.fell_back)
		fields_add(f, "CORESINK_FALLBACK=readwrite (splice: %s)", strerror(-o->st.fallback_error));
	if (o->st.prealloc_fallback)
		fields_add(f, "CORESINK_PREALLOC=ftruncate (fallocate: %s)", strerror(EOPNOTSUPP));
	if (o->error)
		fields_add(f, "CORESINK_ERROR=%s: %s", o->step, strerror(-o->error));
	if (o->st.hook_error)
		fields_add(f, "CORESINK_LEDGER_ERROR=%s", strerror(-o->st.hook_error));
	if (o->st.late_statfs)
		fields_add(f, "CORESINK_LATE_STATFS=1");
	if (o->st.statfs_error)
		fields_add(f, "CORESINK_STATFS_ERROR=%s: the free space last read, less the core's bytes since, stood in",
			   strerror(-o->st.statfs_error));
	if (o->st.syncs)
		fields_add(f, "CORESINK_SYNC=%u syncfs in %llu us", o->st.syncs,
			   (unsigned long long)o->st.sync_ns / 1000);
	if (o->acl)
		fields_add(f, "CORESINK_ACL=user read");
	else if (o->acl_error)
		fields_add(f, "CORESINK_ACL=failed: %s", strerror(-o->acl_error));
	else if (o->acl_none && o->path[0])
		fields_add(f, "CORESINK_ACL=none: %s", o->acl_none);
	report_footprint_fields(f);
}

/*
 * The container its cgroup names (a systemd machine's name, a runtime's container id, the pod above it) and what
 * the runtime's own files said of them, read before the release.
 */
static void add_container_fields(struct fields *f, const struct container *c)
{
	report_add_line(f, "CORESINK_MACHINE", c->machine);
	if (!c->id[0])
		return;
	report_add_line(f, "CORESINK_CONTAINER_RUNTIME", c->runtime);
	report_add_line(f, "CORESINK_CONTAINER_ID", c->id);
	report_add_line(f, "CORESINK_CONTAINER_NAME", c->name);
	report_add_line(f, "CORESINK_CONTAINER_IMAGE", c->image);
	report_add_line(f, c->kube ? "CORESINK_POD_UID" : "CORESINK_POD_ID", c->pod);
	report_add_line(f, "CORESINK_POD_NAME", c->pod_name);
	report_add_line(f, "CORESINK_POD_NAMESPACE", c->pod_namespace);
	report_add_line(f, "CORESINK_POD_LABELS", c->pod_labels);
	report_add_line(f, "CORESINK_CONTAINER_LABELS", c->labels);
	report_add_line(f, "CORESINK_CONTAINER_FROM", c->state);
	report_add_line(f, "CORESINK_POD_FROM", c->pod_from);
}

/* What the analysis found of packages (systemd-coredump's fields), how long it took, and why not more. */
void report_analysis_fields(struct fields *f, const struct analysis *a)
{
	report_add_line(f, "COREDUMP_PACKAGE_NAME", a->package_name);
	report_add_line(f, "COREDUMP_PACKAGE_VERSION", a->package_version);
	report_add_line(f, "COREDUMP_PACKAGE_JSON", a->package_json);
	if (a->elapsed_us) {
		char confined[96];

		sandbox_confinement_text(a->confined, confined, sizeof(confined));
		fields_add(f, "CORESINK_TRACE_USEC=%llu", (unsigned long long)a->elapsed_us);
		fields_add(f, "CORESINK_TRACE_SANDBOX=%s", confined);
	}
	if (a->why[0])
		fields_add(f, "CORESINK_TRACE=%s", a->why);
	report_add_line(f, "CORESINK_TRACE_UNREAD", a->unread);
	if (a->debuginfo[0]) {
		fields_add(f, "CORESINK_DEBUGINFO=%s", a->debuginfo);
		fields_add(f, "CORESINK_DEBUGINFO_USEC=%llu", (unsigned long long)a->debuginfo_us);
	}
	if (a->files[0])
		fields_add(f, "CORESINK_TRACE_FILES=%s", a->files);
}

/* The crash's signature (signature.c, docs/signatures.md): the hash, what was hashed, and from what. */
static void add_signature_fields(struct fields *f, const struct outcome *o)
{
	if (!o->have_sig)
		return;
	fields_add(f, "CORESINK_SIGNATURE=%s", o->sig.hex);
	report_add_line(f, "CORESINK_SIGNATURE_TEXT", o->sig.text);
	fields_add(f, "CORESINK_SIGNATURE_FROM=%s", o->sig.from_trace ? "trace" :
		   "executable (no frame of the crashing thread was known: weaker)");
	if (o->sig.keys[0])
		fields_add(f, "CORESINK_SIGNATURE_KEYS=%s", o->sig.keys);
	if (o->seen_error) {
		fields_add(f, "CORESINK_SIGNATURE_ERROR=%s/%s: %s", "the signatures seen", SIGSTORE_FILE,
			   strerror(-o->seen_error));
		return;
	}
	fields_add(f, "CORESINK_SIGNATURE_SEEN=%llu", (unsigned long long)o->seen.count);
	fields_add(f, "CORESINK_SIGNATURE_FIRST_SEEN=%llu", (unsigned long long)o->seen.first * 1000000ULL);
	if (o->seen.count == 1)
		fields_add(f, "CORESINK_SIGNATURE_NEW=1");
	/* The same bug seen before with more or fewer frames named: counted as one (sigstore.c). */
	if (o->seen.joined[0] && strcmp(o->seen.joined, o->sig.hex) != 0)
		fields_add(f, "CORESINK_SIGNATURE_JOINS=%s", o->seen.joined);
	if (o->sig_max)
		fields_add(f, "CORESINK_SIGNATURE_KEPT=%u of MaxCoresPerSignature=%llu since %llu", o->seen.kept,
			   (unsigned long long)o->sig_max, (unsigned long long)o->seen.window * 1000000ULL);
}

/* Why a limit stopped the capture, as a clause. */
static void limit_reason(const struct kargs *k, const struct outcome *o, char *buf, size_t len)
{
	if (o->error)
		(void) snprintf(buf, len, "%s failed: %s", o->step, strerror(-o->error));
	else if (o->st.space_error)
		(void) snprintf(buf, len, "%s", strerror(-o->st.space_error));
	else if (o->st.limit == LIMIT_KEEP_FREE)
		(void) snprintf(buf, len, "keeping %llu bytes free (KeepFree)", (unsigned long long)o->st.reserve);
	else if (o->st.limit == LIMIT_RLIMIT)
		(void) snprintf(buf, len, "RLIMIT_CORE is %llu", (unsigned long long)k->rlimit);
	else if (o->st.limit == LIMIT_SILENT)
		(void) snprintf(buf, len, "the dump said nothing for %llu ms (SocketSilenceSec) after %llu of the %llu bytes "
				"its headers announce: abandoned, what came kept, so that no crash holds a slot with a dump "
				"the kernel reads slowly", (unsigned long long)o->silence_ms, (unsigned long long)o->st.input,
				(unsigned long long)o->st.expected);
	else if (o->st.limit == LIMIT_CUT_SHORT)
		(void) snprintf(buf, len, "the dump was cut short at %llu of the %llu bytes its headers announce: the "
				"process was killed while dumping%s", (unsigned long long)o->st.input,
				(unsigned long long)o->st.expected, o->stacks.added ? "; every thread's stack kept" : "");
	else
		(void) snprintf(buf, len, "%s reached", limit_to_string(o->st.limit));
	if (o->stacks.added && o->stacks.replaced)
		(void) snprintf(buf + strlen(buf), len - strlen(buf), "; its last %llu bytes gave way to every thread's "
				"stack", (unsigned long long)o->stacks.replaced);
}

/* What came of the core, after "dumped core (SIG)": one clause per result. */
static void result_clause(const struct kargs *k, const struct outcome *o, char *buf, size_t len)
{
	char why[256];
	unsigned long long bytes = (unsigned long long)o->st.bytes;

	limit_reason(k, o, why, sizeof(why));
	switch (o->result) {
	case RESULT_STORED:
		(void) snprintf(buf, len, "%llu bytes stored in %s", bytes, o->in_journal ? "the journal" : o->path);
		break;
	case RESULT_TRUNCATED:
		(void) snprintf(buf, len, "truncated to %llu bytes in %s: %s", bytes,
				o->in_journal ? "the journal" : o->path, why);
		break;
	case RESULT_DISCARDED:
		if (bytes == 0)
			(void) snprintf(buf, len, "not stored: %s", why);
		else
			(void) snprintf(buf, len, "discarded after %llu bytes: %s, and OnLimit=discard", bytes, why);
		break;
	case RESULT_SUPPRESSED:
		if (o->sig_dropped)
			(void) snprintf(buf, len, "not kept: MaxCoresPerSignature=%llu cores of its signature are kept "
					"already", (unsigned long long)o->sig_max);
		else
			(void) snprintf(buf, len, "not stored: %s crash-rate limit (%s)", o->suppressed_by,
					strcmp(o->suppressed_by, "user") == 0 ? "RateLimitUserBurst" :
					strcmp(o->suppressed_by, "global") == 0 ? "RateLimitGlobalBurst" : "RateLimitBurst");
		break;
	case RESULT_SKIPPED:
		(void) snprintf(buf, len, "not stored: RLIMIT_CORE is %llu", (unsigned long long)k->rlimit);
		break;
	case RESULT_RECORDED:
		(void) snprintf(buf, len, "not stored (Storage=none%s)", o->st.bytes ? ", read for the stack trace" : "");
		break;
	default:
		(void) snprintf(buf, len, "not stored: %s: %s", o->step ? o->step : "error", strerror(-o->error));
	}
}

/* The sentence (one line, escaped as such), a blank line, the trace (its lines kept, anything else escaped). */
void report_message_with_trace(struct fields *f, const char *sentence, const char *trace)
{
	char *s = escape_dup(sentence, 0), *t = escape_dup(trace, ESCAPE_MULTILINE);

	if (s && t)
		fields_add(f, "MESSAGE=%s\n\n%s", s, t);
	else
		add_text(f, "MESSAGE", sentence, 0);
	free(s);
	free(t);
}

/*
 * Says in one sentence what happened, naming the process the way systemd-coredump does; then, after a blank line,
 * the stack trace as systemd-coredump gives it, so that journalctl and coredumpctl info show it where admins look.
 */
static void add_message(struct fields *f, const struct kargs *k, const struct outcome *o, const char *sig,
			const struct analysis *a)
{
	char clause[PATH_MAX + 600], extra[256] = "", comm[NAME_COMM_ESCAPED], msg[sizeof(clause) + 512];

	result_clause(k, o, clause, sizeof(clause));
	(void) escape_text(comm, sizeof(comm), k->comm, ESCAPE_BACKSLASH);
	if (o->suppressed_exe || o->suppressed_all)
		(void) snprintf(extra, sizeof(extra), " %u earlier crash(es) were not stored (rate limit).",
				o->suppressed_exe + o->suppressed_all);
	if (o->vacuumed)
		(void) snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
				" Removed %u old core(s), %llu bytes, to make room.", o->vacuumed,
				(unsigned long long)o->vacuumed_bytes);
	if (o->vacuumed_unsent)
		(void) snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
				" %u of them had not been uploaded yet (ExecUpload=): they are lost.", o->vacuumed_unsent);
	if (o->st.hook_error)
		(void) snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
				" The ledger failed during the capture (%s): MaxUse was not applied from then on.",
				strerror(-o->st.hook_error));
	if (o->rejected)
		(void) snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
				" The kernel was told before the dump: no byte of it was written.");
	(void) snprintf(msg, sizeof(msg), "Process %d (%s) of user %u %s (%s); %s.%s", (int)k->pid, comm,
			(unsigned)k->uid, o->rejected ? "crashed" : "dumped core", sig, clause, extra);
	if (!a->trace) {
		/* The comm is escaped already; this catches the stored path, which holds the configured Directory. */
		add_text(f, "MESSAGE", msg, 0);
		return;
	}
	report_message_with_trace(f, msg, a->trace);
}

/* What /proc told, under systemd-coredump's field names; or why nothing was taken from there. */
static void add_proc_fields(struct fields *f, const struct procinfo *pi)
{
	if (!pi->trusted) {
		fields_add(f, "CORESINK_METADATA=not collected: %s", pi->why ? pi->why : "unknown");
		return;
	}
	report_add_line(f, "COREDUMP_CMDLINE", pi->cmdline);
	report_add_line(f, "COREDUMP_CGROUP", pi->cgroup);
	report_add_line(f, "COREDUMP_UNIT", pi->units.unit);
	report_add_line(f, "COREDUMP_USER_UNIT", pi->units.user_unit);
	report_add_line(f, "COREDUMP_SLICE", pi->units.slice);
	if (pi->units.owner_uid != (uid_t)-1)
		fields_add(f, "COREDUMP_OWNER_UID=%u", (unsigned)pi->units.owner_uid);
	report_add_line(f, "COREDUMP_CWD", pi->cwd);
	report_add_line(f, "COREDUMP_ROOT", pi->root);
	/* What the kernel formats as lines keeps its newlines and tabs; the process's bytes in them are escaped. */
	add_text(f, "COREDUMP_PROC_STATUS", pi->status, ESCAPE_MULTILINE);
	add_text(f, "COREDUMP_PROC_MAPS", pi->maps, ESCAPE_MULTILINE);
	add_text(f, "COREDUMP_PROC_LIMITS", pi->limits, ESCAPE_MULTILINE);
	add_text(f, "COREDUMP_OPEN_FDS", pi->fds, ESCAPE_MULTILINE);
	add_text(f, "COREDUMP_ENVIRON", pi->environ, ESCAPE_MULTILINE);
	if (pi->container && pi->complete)
		report_add_line(f, "COREDUMP_CONTAINER_CMDLINE", pi->container_cmdline ? pi->container_cmdline : "?");
	/* The pid its own tools (ps, its journal) know it by, inside its pid namespace. */
	if (pi->container && pi->inner_pid > 0)
		fields_add(f, "CORESINK_CONTAINER_PID=%d", (int)pi->inner_pid);
	add_container_fields(f, &pi->ct);
}

/*
 * Logs that a crash is being handled, as soon as its process is known and before anything can hang or fail (as
 * systemd-coredump does): a handler killed mid-capture still leaves this line. A plain log line, not the crash's
 * entry. 0 journald, 1 kernel log, or -errno.
 */
int report_start(const struct kargs *k)
{
	char comm[NAME_COMM_ESCAPED], sig[32];
	struct fields f;
	int r;

	signal_name(k->signal, sig, sizeof(sig));
	(void) escape_text(comm, sizeof(comm), k->comm, ESCAPE_BACKSLASH);
	fields_init(&f, LOG_INFO);
	/* Socket mode learns the signal from the core's notes, after this line. */
	if (k->signal > 0)
		fields_add(&f, "MESSAGE=Process %d (%s) of user %u terminated abnormally with signal %d/%s, "
			   "processing...", (int)k->pid, comm, (unsigned)k->uid, k->signal, sig);
	else
		fields_add(&f, "MESSAGE=Process %d (%s) of user %u terminated abnormally, processing...",
			   (int)k->pid, comm, (unsigned)k->uid);
	fields_add(&f, "CORESINK_PID=%d", (int)k->pid);
	r = journal_send(&f);
	fields_free(&f);
	return r;
}

/* The crash's entry, its fields: what report_crash() sends, and what ExecUpload= is given. fields_free() them. */
void report_fields(const struct kargs *k, const struct outcome *o, const struct procinfo *pi,
		   const struct analysis *a, struct fields *f)
{
	char sig[32];

	signal_name(k->signal, sig, sizeof(sig));
	fields_init(f, o->result == RESULT_STORED ? LOG_CRIT : LOG_ERR);
	add_message(f, k, o, sig, a);
	add_process_fields(f, k, o, sig);
	add_outcome_fields(f, o);
	add_signature_fields(f, o);
	report_hook_fields(f, o);
	report_analysis_fields(f, a);
	add_proc_fields(f, pi);
}

/*
 * Logs what came of an upload of the core at path (ExecUpload=), linked to its crash by COREDUMP_PID: sent, or
 * failed and pending until next (epoch seconds), or failed and lost (next 0: the core was removed meanwhile), with
 * what the command said.
 */
int report_upload(pid_t pid, const char *path, unsigned attempt, const struct sandbox_result *res, int err,
		  uint64_t next)
{
	bool sent = err == 0 && res->end == SANDBOX_DONE;
	char how[96], when[64] = "";
	struct fields f;
	int r;

	if (err)
		(void) snprintf(how, sizeof(how), "could not be started: %s", strerror(-err));
	else if (sent)
		(void) snprintf(how, sizeof(how), "sent in %llu ms", (unsigned long long)res->elapsed_us / 1000);
	else if (res->end == SANDBOX_FAILED || res->end == SANDBOX_KILLED)
		(void) snprintf(how, sizeof(how), "failed (%s %d)", res->end == SANDBOX_FAILED ? "exit status" : "signal",
				res->code);
	else
		(void) snprintf(how, sizeof(how), "failed (%s)", sandbox_end_to_string(res->end));
	if (!sent && next)
		(void) snprintf(when, sizeof(when), "; kept, to be tried again after %llu", (unsigned long long)next);
	else if (!sent)
		(void) snprintf(when, sizeof(when), "; the core was removed meanwhile to make room: lost");
	fields_init(&f, sent ? LOG_INFO : LOG_WARNING);
	fields_add(&f, "MESSAGE_ID=" CORESINK_UPLOAD_MESSAGE_ID);
	fields_add(&f, "MESSAGE=Upload of %s (process %d), attempt %u: %s%s.", path, (int)pid, attempt, how, when);
	fields_add(&f, "COREDUMP_PID=%d", (int)pid);
	report_add_line(&f, "COREDUMP_FILENAME", path);
	fields_add(&f, "CORESINK_UPLOAD=%s", sent ? "sent" : next ? "pending" : "lost");
	fields_add(&f, "CORESINK_UPLOAD_ATTEMPT=%u", attempt);
	if (!err) {
		fields_add(&f, "CORESINK_UPLOAD_USEC=%llu", (unsigned long long)res->elapsed_us);
		fields_add(&f, "CORESINK_UPLOAD_END=%s", sandbox_end_to_string(res->end));
		fields_add(&f, "CORESINK_UPLOAD_STATUS=%d", res->code);
		add_text(&f, "CORESINK_UPLOAD_OUTPUT", res->out ? res->out : "", ESCAPE_MULTILINE);
	}
	if (next)
		fields_add(&f, "CORESINK_UPLOAD_NEXT=%llu", (unsigned long long)next);
	r = journal_send(&f);
	fields_free(&f);
	return r;
}

/*
 * Logs the crash: one entry, whatever the outcome. 0 journald, 1 kernel log, or -errno. With o->in_journal the
 * core, from corefd, goes into the entry (COREDUMP=): then only journald will do, and -errno means it did not take
 * it (nothing was logged; the caller stores the core and logs again).
 */
int report_crash(const struct kargs *k, const struct outcome *o, const struct procinfo *pi, const struct analysis *a,
		 int corefd)
{
	struct fields f;
	int r;

	report_fields(k, o, pi, a, &f);
	/* The owner may read the entry only when the crash is theirs to see (flow/capture.c: crash_owner_sees()). */
	if (o->in_journal)
		r = journal_send_file(&f, "COREDUMP", corefd, o->st.bytes, o->owner_entry ? k->uid : 0,
				      o->owner_entry ? k->gid : 0);
	else
		r = o->owner_entry ? journal_send_as(&f, k->uid, k->gid) : journal_send(&f);
	if (o->owner_entry && r == 0)
		origin_seal(k, o, &f, corefd);
	fields_free(&f);
	return r;
}

/*
 * The one entry of crash c, whose handler died before it wrote it, written by whoever found that out: stored,
 * naming the core nc (with the entry id the core was stored for) where the handler had stored it and it is still
 * there, else failed at step with error. What the ledger or the server knew of the crash is all there is; why says
 * so. 0 journald, 1 kernel log, or -errno.
 */
static int report_named(const struct ledger_crash *c, const char *why, const char *step, int error,
			const struct named_core *nc, bool socket, enum strategy strategy)
{
	const struct kargs k = { .pid = c->pid, .uid = c->uid, .gid = c->gid, .time = c->time,
				 .signal = (int)c->signal, .rlimit = UINT64_MAX, .hostname = "", .comm = c->comm,
				 .dumpmode = SUID_DUMP_ROOT, .pidfd = -1 };
	static struct outcome o;
	const struct procinfo pi = { .why = why };
	const struct analysis a = { 0 };
	bool stored = nc->path[0];

	o = (struct outcome) { .result = stored ? RESULT_STORED : RESULT_FAILED, .exe = "", .socket = socket,
			       .strategy = strategy, .step = step, .error = stored ? 0 : error };
	(void) snprintf(o.path, sizeof(o.path), "%s", nc->path);
	(void) snprintf(o.entry_id, sizeof(o.entry_id), "%s", stored ? nc->entry : "");
	o.st.bytes = stored ? nc->size : 0;
	return report_crash(&k, &o, &pi, &a, -1);
}

/*
 * Logs crash c, taken by socket mode's server, whose capture wrote no entry: its process was killed or died (step
 * says how, error is the -errno the entry gives), or none could be started; nc as report_named().
 */
int report_lost(const struct ledger_crash *c, const char *step, int error, const struct named_core *nc,
		enum strategy strategy)
{
	return report_named(c, "its capture wrote no entry", step, error, nc, true, strategy);
}

/*
 * Logs crash c, whose pipe-mode handler (pid handler) died before its entry, as a later handler found it in the
 * ledger; nc as report_named().
 */
int report_orphan(const struct ledger_crash *c, pid_t handler, const struct named_core *nc)
{
	char step[128], why[128];

	(void) snprintf(step, sizeof(step), "the capture (its handler, pid %d, died before the entry)", (int)handler);
	(void) snprintf(why, sizeof(why), "its handler (pid %d) died before the entry; named by a later handler",
			(int)handler);
	/* The strategy the dead handler used is not known; the entry has said splice (the zeroed value) until now. */
	return report_named(c, why, step, -ECANCELED, nc, false, STRATEGY_SPLICE);
}

/*
 * Logs a connection to the coredump socket that is not from a crashing task (err: -EPERM), or whose task the
 * kernel would not describe: it is dropped without an answer. The peer is named by its credentials.
 */
int report_refused(int conn, int err)
{
	struct ucred uc = { .pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	socklen_t len = sizeof(uc);
	struct fields f;
	int r;

	(void) getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &uc, &len);
	fields_init(&f, LOG_WARNING);
	fields_add(&f, "MESSAGE=Refused a connection to the coredump socket from pid %d (uid %u): %s.", (int)uc.pid,
		   (unsigned)uc.uid, err == -EPERM ? "not a crashing task" : strerror(-err));
	fields_add(&f, "CORESINK_REFUSED_PID=%d", (int)uc.pid);
	fields_add(&f, "CORESINK_REFUSED_UID=%u", (unsigned)uc.uid);
	r = journal_send(&f);
	fields_free(&f);
	return r;
}

/*
 * Logs the crashes the kernel dropped over kernel.core_pipe_limit (kskip.c), all in one entry: they left no core
 * and no process to describe, only the kernel's line, and this is where an operator sees them. 0 journald, 1 the
 * kernel log, or -errno.
 */
int report_kernel_skips(const struct kskip *ks, long pipe_limit)
{
	char msg[sizeof(ks->list) + 512], held[160] = "";
	struct fields f;
	int r;

	if (ks->held_back)
		(void) snprintf(held, sizeof(held), " It held back %u more of its lines about crashes it could not pipe "
				"(rate limit): as many more may have been dropped.", ks->held_back);
	fields_init(&f, LOG_ERR);
	(void) snprintf(msg, sizeof(msg), "The kernel dropped %u%s crash(es) over kernel.core_pipe_limit=%ld, with no "
			"core and no entry of their own: %s%s.%s", ks->count, ks->lost_records ? " or more" : "",
			pipe_limit, ks->count ? ks->list : "none named", ks->listed_all ? "" : ", ...", held);
	/* The list was escaped as it was made (the comms are the crashing processes'). */
	add_text(&f, "MESSAGE", msg, 0);
	fields_add(&f, "MESSAGE_ID=" CORESINK_DROPPED_MESSAGE_ID);
	fields_add(&f, "CORESINK_KERNEL_DROPPED=%u", ks->count);
	add_text(&f, "CORESINK_KERNEL_DROPPED_PROCESSES", ks->list, 0);
	if (ks->held_back)
		fields_add(&f, "CORESINK_KERNEL_HELD_BACK=%u", ks->held_back);
	fields_add(&f, "CORESINK_PIPE_LIMIT=%ld", pipe_limit);
	r = journal_send(&f);
	fields_free(&f);
	return r;
}

/* Logs every problem in d as one warning entry about what (the config file, the arguments), and what follows. */
int report_diag(const struct diag *d, const char *what, const char *consequence)
{
	char text[DIAG_MAX * DIAG_LEN / 2], msg[sizeof(text) + 512];
	size_t n = 0;
	struct fields f;
	int r;

	if (diag_count(d) == 0)
		return 0;
	text[0] = '\0';
	for (int i = 0; i < d->n && n < sizeof(text); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s", i ? "; " : "", d->msg[i]);
	fields_init(&f, LOG_WARNING);
	(void) snprintf(msg, sizeof(msg), "%d problem(s) with %s, %s: %s%s", diag_count(d), what, consequence, text,
			d->dropped ? "; ..." : "");
	/* The problems quote what was read: a config file's bytes, a hostile process's arguments. */
	add_text(&f, "MESSAGE", msg, 0);
	r = journal_send(&f);
	fields_free(&f);
	return r;
}
