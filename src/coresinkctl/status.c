/*
 * status.c: coresinkctl status, what an admin asks first: whose kernel.core_pattern is live and in which mode;
 * whether this kernel can serve socket mode (sockcap.c, asked without touching the pattern); what the core
 * directory's cores take against MaxUse= (the modules kept for them among it) and what is free against KeepFree=;
 * the captures in progress (the ledger's: root's); the last crash and the last failure in the journal (coresink's
 * own entries); how many cores ExecUpload= has still to send.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "base.h"
#include "intake.h"
#include "sandbox.h"
#include "status.h"
#include "write.h"

#define MIB (1024.0 * 1024.0)

static void when(uint64_t usec, char *buf, size_t len)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm) == 0)
		(void) snprintf(buf, len, "@%" PRIu64, usec / 1000000);
}

/* The live pattern, and which of coresink's modes it is, if any. */
static void pattern(void)
{
	char live[CORE_PATTERN_MAX + 2], why[256] = "";
	struct sockcap k;
	const char *no, *mode;
	int r = core_pattern_get(live, sizeof(live));

	if (r < 0)
		(void) snprintf(live, sizeof(live), "(unreadable: %s)", strerror(-r));
	mode = live[0] == '|' && strstr(live, "/coresink ") ? "pipe mode, coresink's" :
	       strncmp(live, "@@", 2) == 0 ? "socket mode (\"@@\")" : "not coresink's";
	printf("%-17s %s\n%-17s %s\n", "kernel.core_pattern:", live, "mode:", mode);
	sockcap_probe(&k, false);
	if (!sockcap_serves(&k, &no))
		(void) snprintf(why, sizeof(why), ": %s", no);
	printf("%-17s %s%s (Linux %u.%u)\n", "socket mode:", no ? "not served by this kernel" : "served by this kernel",
	       why, k.major, k.minor);
}

/* What the cores take, against MaxUse= and KeepFree= of the file system they are on. */
static void space(const struct config *c, int dirfd)
{
	struct side_space l;
	uint64_t used = 0, mods;
	int r = dirfd < 0 ? -EBADF : config_limits(c, dirfd, &l);

	if (r == 0)
		r = vacuum_total(dirfd, &used);
	if (r < 0) {
		printf("%-17s %s: %s\n", "directory:", c->directory, strerror(-r));
		return;
	}
	printf("%-17s %s\n", "directory:", c->directory);
	mods = modstore_total(dirfd);
	printf("%-17s %.1f MiB of MaxUse=%.1f MiB", "cores take:", (double)used / MIB, (double)l.max_use / MIB);
	if (mods) {
		char size[32];

		show_size(mods, size, sizeof(size));
		printf(", %s of it modules kept for them (KeepModules=)", size);
	}
	putchar('\n');
	printf("%-17s %.1f MiB of %.1f MiB, KeepFree=%.1f MiB%s\n", "free:", (double)l.avail / MIB, (double)l.total / MIB,
	       (double)l.keep_free / MIB, l.avail < l.keep_free ? " (below it: no core is stored until room is made)" : "");
	if (c->encrypt.bad)
		printf("%-17s Encrypt= does not parse: no core is stored (coresink --check-config)\n", "encryption:");
	else if (c->encrypt.n > 0)
		printf("%-17s to %u age recipient(s); %u core(s) stored before it, in plaintext\n", "encryption:",
		       c->encrypt.n, corefile_plaintext(dirfd));
}

/* How many cores ExecUpload= has still to send (UPLOAD_XATTR). */
static void uploads(const struct config *c, int dirfd)
{
	struct vacuum_core *list;
	int n = dirfd < 0 ? -EBADF : vacuum_list(dirfd, &list), pending = 0;

	for (int i = 0; i < n; i++) {
		unsigned attempts;
		uint64_t next;
		int fd = openat(dirfd, list[i].o.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0 && upload_pending(fd, &attempts, &next) > 0)
			pending++;
		fd_close(&fd);
	}
	if (n > 0)
		free(list);
	printf("%-17s %s", "uploads:", c->exec_upload[0] ? "" : "none configured (ExecUpload=)");
	if (c->exec_upload[0])
		printf("%d core(s) still to send", pending);
	putchar('\n');
}

/* The newest crash, and the newest whose capture failed. */
static void last(const struct found *found)
{
	const struct record *crash = found->n ? &found->c[found->n - 1] : NULL, *failed = NULL;
	char t[64];

	for (size_t i = found->n; i-- > 0 && !failed;)
		if (strcmp(found->c[i].result, "failed") == 0)
			failed = &found->c[i];
	/* The executable and the result are the entry's text: escaped, as every field that reaches the terminal. */
	if (crash) {
		when(crash->usec, t, sizeof(t));
		printf("%-17s %s, pid %d, ", "last crash:", t, (int)crash->pid);
		escape_fputs(stdout, crash->exe[0] ? crash->exe : "n/a", ESCAPE_BACKSLASH);
		fputs(": ", stdout);
		escape_fputs(stdout, crash->result[0] ? crash->result : "?", ESCAPE_BACKSLASH);
		putchar('\n');
	} else {
		printf("%-17s none in the journal\n", "last crash:");
	}
	if (failed) {
		when(failed->usec, t, sizeof(t));
		printf("%-17s %s, pid %d, ", "last failure:", t, (int)failed->pid);
		escape_fputs(stdout, failed->exe[0] ? failed->exe : "n/a", ESCAPE_BACKSLASH);
		putchar('\n');
	} else {
		printf("%-17s none in the journal\n", "last failure:");
	}
	if (found->foreign)
		printf("%-17s %u entries with coresink's MESSAGE_ID that coresink did not write\n", "skipped:",
		       found->foreign);
}

/* The captures in progress: each crash's pid, what it is, what its core holds so far, since when. Root's. */
static void in_progress(int dirfd)
{
	struct captures_now *now = malloc(sizeof(*now));
	int r = !now ? -ENOMEM : dirfd < 0 ? -EBADF : captures_now(dirfd, now);
	char t[64];

	if (r < 0)
		printf("%-17s unknown: the ledger: %s%s\n", "in progress:", strerror(-r),
		       r == -EACCES ? " (root's)" : "");
	else if (now->n == 0)
		printf("%-17s none\n", "in progress:");
	for (size_t i = 0; r == 0 && i < now->n; i++) {
		const struct capture_now *x = &now->c[i];

		when(x->usec, t, sizeof(t));
		printf("%-17s pid %d, ", i ? "" : "in progress:", (int)x->pid);
		escape_fputs(stdout, x->exe[0] ? x->exe : x->comm, ESCAPE_BACKSLASH);
		printf(": %s, %.1f MiB so far, since %s (%s mode, handler %d)\n", capture_state(x),
		       (double)x->bytes / MIB, t, x->socket ? "socket" : "pipe", (int)x->handler);
	}
	free(now);
}

int status_show(const struct config *c, int dirfd, const struct found *found)
{
	pattern();
	space(c, dirfd);
	uploads(c, dirfd);
	in_progress(dirfd);
	last(found);
	return 0;
}
