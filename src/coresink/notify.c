/*
 * notify.c: NotifyDirectory=, someone told of a crash. Once a crash's entry is in the journal, each notifier in the
 * directory runs with the crash as JSON on its standard input (and on fd 3): what coresinkctl info --json prints of
 * that entry, read back through the same reader (a forged entry, or a user's not yet sealed by root, is none), with
 * "NotifyFolded": how many crashes of its signature were not notified since the last one. A crash loop notifies
 * once per signature per NotifyIntervalSec= (counted in Directory's .coresink.notify).
 * Which notifiers: the directory's programs as parts.c takes them (run-parts(8)'s names, root's and writable by
 * nobody else, in a directory of the same kind; the rest not run, and said). Each runs as ExecUpload= does (upload.c): as
 * UploadUser, no capabilities, no_new_privs, its own environment and nothing of the crash's, killed with its children
 * at NotifyTimeoutSec, its output bounded and kept in the entry that says what came of each.
 * Who runs them: the handler, in a process of its own that it does not wait for (pipe mode, and socket mode with the
 * network), so that neither the crashed process, long let go, nor the next capture waits; socket mode under its
 * units asks the door to the network (netdoor.c), which has the network a webhook needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "base.h"
#include "config.h"
#include "report.h"
#include "sandbox.h"
#include "store.h"
#include "flow.h"
#include "notify.h"

#define NOTIFY_STATE ".coresink.notify"
#define NOTIFY_KEYS_MAX 1024
#define NOTIFY_STATE_MAX (NOTIFY_KEYS_MAX * 112)   /* a line: a key of 79 bytes at most, two numbers */
#define ENTRY_WAIT_MS 15000

/*
 * The fold of a crash of key at now, decided on the state's text (lines "KEY LAST FOLDED"): notified where it is the
 * first of its interval seconds (0: every one), with the crashes folded into it since the last one in *folded. The
 * new text goes to o, this crash's line first: the NOTIFY_KEYS_MAX kept are those seen last. 1 notify, 0 folded.
 */
static int fold_text(char *text, const char *key, uint64_t now, uint64_t interval, FILE *o, uint64_t *folded)
{
	char *lines[NOTIFY_KEYS_MAX], *save = NULL, k[80];
	unsigned long long last = 0, f = 0, a, b;
	bool seen = false;
	size_t n = 0;
	int r = 1;

	for (char *l = strtok_r(text, "\n", &save); l && n < NOTIFY_KEYS_MAX; l = strtok_r(NULL, "\n", &save)) {
		if (sscanf(l, "%79s %llu %llu", k, &a, &b) != 3)
			continue;
		if (strcmp(k, key) != 0)
			lines[n++] = l;
		else
			seen = true, last = a, f = b;
	}
	if (seen)
		r = interval == 0 || now >= last + interval || now < last;
	*folded = r ? f : 0;
	fprintf(o, "%s %llu %llu\n", key, r ? (unsigned long long)now : last, r ? 0ULL : f + 1);
	for (size_t i = 0; i + 1 < NOTIFY_KEYS_MAX && i < n; i++)
		fprintf(o, "%s\n", lines[i]);
	return r;
}

/*
 * Whether a crash of key (its signature) is to be notified at now, decided under the lock of the directory's
 * NOTIFY_STATE (fold_text). 1 with the crashes folded into it in *folded, 0 folded, or -errno (then it is notified:
 * a notification too many beats none).
 */
static int fold(int dirfd, const char *key, uint64_t now, uint64_t interval, uint64_t *folded)
{
	char *text = malloc(NOTIFY_STATE_MAX + 1), *out = NULL;
	_cleanup_close_ int fd = statefile_open(dirfd, NOTIFY_STATE);
	int r;
	ssize_t got = -ENOMEM;
	size_t len = 0;
	FILE *o = NULL;

	*folded = 0;
	if (fd >= 0 && text)
		got = flock(fd, LOCK_EX) < 0 ? -EIO : io_read_full(fd, text, NOTIFY_STATE_MAX, NULL);
	if (got >= 0 && !(o = open_memstream(&out, &len)))
		got = -ENOMEM;
	r = fd < 0 ? fd : got < 0 ? (int)got : 0;
	if (r == 0) {
		text[got] = '\0';
		r = fold_text(text, key, now, interval, o, folded);
		if (fclose(o) == 0)
			(void) statefile_rewrite(fd, out, len);
		free(out);
	}
	free(text);
	return r;
}

/*
 * The crash's entry (CORESINK_ENTRY=entry) read back as coresinkctl reads it, waiting for it (and a user's seal) at
 * most ENTRY_WAIT_MS. 0 with *found holding it, or -errno (-ENOENT: none came).
 */
static int entry_read(const char *entry, struct found *found)
{
	char match[64], *matches[] = { match };
	struct selection sel = { .matches = matches, .n_matches = 1 };
	uint64_t t0 = clock_ms();
	int r;

	(void) snprintf(match, sizeof(match), "CORESINK_ENTRY=%s", entry);
	for (;;) {
		r = entries_find(&sel, found);
		if (r < 0 || found->n > 0)
			return r;
		entries_free(found);
		if (clock_ms() - t0 > ENTRY_WAIT_MS)
			return -ENOENT;
		(void) usleep(100 * 1000);
	}
}

/* What folds a crash loop: its signature, else a hash of its executable (a crash with no trace has no signature). */
static void key_of(const struct record *c, char *key, size_t len)
{
	unsigned long long h = 5381;

	if (c->signature[0] && strspn(c->signature, "0123456789abcdef") == strlen(c->signature) &&
	    strlen(c->signature) < len) {
		(void) snprintf(key, len, "%s", c->signature);
		return;
	}
	for (const char *p = c->exe; *p; p++)
		h = h * 33 + (unsigned char)*p;
	(void) snprintf(key, len, "exe-%016llx", h);
}

/* The crash as coresinkctl info --json prints it, with "NotifyFolded": the crashes of its signature folded into it. */
static char *crash_text(const struct found *found, int dirfd, uint64_t folded)
{
	char *text = NULL, *end;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	show_info(m, found, dirfd, JSON_SHORT);
	if (fclose(m) != 0 || !text || !(end = strrchr(text, '}'))) {
		free(text);
		return NULL;
	}
	*end = '\0';
	if (asprintf(&end, "%s,\"NotifyFolded\":%llu}\n", text, (unsigned long long)folded) < 0)
		end = NULL;
	free(text);
	return end;
}

/* One notifier, confined as ExecUpload= is, given text; what came of it into said. */
static void run_one(const struct config *c, const char *name, const char *text, uid_t uid, gid_t gid, char *said,
		    size_t len)
{
	char command[PATH_MAX + NAME_MAX + 2];
	static char path[] = "PATH=/usr/local/bin:/usr/bin:/bin", home[] = "HOME=/", json_fd[] = "CORESINK_JSON_FD=3";
	char *env[] = { path, home, json_fd, NULL };
	struct upload_job j = { .command = command, .env = env, .json = text, .uid = uid, .gid = gid,
				.timeout_ms = (unsigned)c->notify_timeout_ms };
	struct sandbox_result res = { 0 };
	char *out;
	int r;

	(void) snprintf(command, sizeof(command), "%s/%s", c->notify_dir, name);
	j.corefd = upload_text_fd(text);
	r = j.corefd < 0 ? j.corefd : upload_run(&j, &res);
	fd_close(&j.corefd);
	if (r < 0) {
		(void) snprintf(said, len, "%s: not started: %s", name, strerror(-r));
	} else {
		char end[96];

		sandbox_ending(&res, end, sizeof(end));
		(void) snprintf(said, len, "%s: %s", name, end);
	}
	/* Its last newline is the end of its last line, not a byte to show. */
	if (res.out && res.len && res.out[res.len - 1] == '\n')
		res.out[--res.len] = '\0';
	out = res.out && res.len ? escape_dup(res.out, 0) : NULL;
	if (out) {
		size_t at = strlen(said);

		(void) snprintf(said + at, len - at, ", said: %.200s", out);
		free(out);
	}
	sandbox_result_free(&res);
}

/* The entry that says who was told of the crash (entry) and what came of each notifier. */
static void report(const char *entry, pid_t pid, uint64_t folded, const char *said, bool failed)
{
	struct fields f;

	fields_init(&f, failed ? LOG_WARNING : LOG_INFO);
	fields_add(&f, "MESSAGE_ID=" CORESINK_NOTIFY_MESSAGE_ID);
	fields_add(&f, "MESSAGE=Notified of the crash of process %d%s: %s", (int)pid,
		   folded ? " (and of crashes of its signature folded into it)" : "", said);
	fields_add(&f, "COREDUMP_PID=%d", (int)pid);
	fields_add(&f, "CORESINK_NOTIFY_ENTRY=%s", entry);
	fields_add(&f, "CORESINK_NOTIFY_FOLDED=%llu", (unsigned long long)folded);
	fields_add(&f, "CORESINK_NOTIFY=%s", said);
	(void) journal_send(&f);
	fields_free(&f);
}

/* Every notifier of nf told of the crash whose entry is entry, in this process. */
static void notify_now(const struct config *c, const struct parts *nf, const char *entry)
{
	struct found found = { 0 };
	char said[4096] = "", one[512], key[40], *text = NULL;
	uint64_t folded = 0;
	struct diag d = { 0 };
	uid_t uid;
	gid_t gid;
	bool failed = false;
	_cleanup_close_ int dirfd = store_open_dir(c->directory);
	int r;

	r = entry_read(entry, &found);
	if (r < 0) {
		diag_add(&d, "the crash's entry (CORESINK_ENTRY=%s) was not read back: %s", entry, strerror(-r));
		goto out;
	}
	key_of(&found.c[0], key, sizeof(key));
	r = dirfd < 0 ? 1 : fold(dirfd, key, (uint64_t)time(NULL), c->notify_interval, &folded);
	if (r == 0)
		goto out;
	text = crash_text(&found, dirfd, folded);
	r = text ? upload_ids(c->upload_user, &uid, &gid) : -ENOMEM;
	if (r < 0) {
		diag_add(&d, "UploadUser=%s: %s", c->upload_user, strerror(-r));
		goto out;
	}
	for (unsigned i = 0; i < nf->n; i++) {
		size_t at = strlen(said);

		run_one(c, nf->name[i], text, uid, gid, one, sizeof(one));
		failed |= !strstr(one, ": done in ");
		(void) snprintf(said + at, sizeof(said) - at, "%s%s", i ? "; " : "", one);
	}
	report(entry, found.c[0].pid, folded, said, failed);
out:
	(void) report_diag(&d, "the notifiers", "nobody was told of this crash");
	free(text);
	entries_free(&found);
}

/* The configuration's notifiers, listed; what is wrong with the directory said. 0 none, 1 some, in *nf and *c. */
static int wanted(const char *config, bool named, const char *entry, struct config *c, struct parts *nf)
{
	struct diag d = { 0 };
	int r;

	config_read(c, config, named, &d);
	d = (struct diag) { 0 };
	r = parts_list(c->notify_dir, nf, &d);
	(void) report_diag(&d, "the notifiers", r < 0 ? "none is run" : "those are not run");
	if (r < 0 || nf->n == 0 || !entry[0]) {
		config_free(c);
		return 0;
	}
	return 1;
}

/*
 * A handler's crash, its entry out: the notifiers told of it, by the door to the network where the handler has none
 * (netdoor: its path; NULL), else in a process of its own that nobody waits for. Nothing runs, and no process is
 * made, where the directory holds no notifier.
 */
void notify_after(const char *config, bool named, const char *entry, const char *netdoor)
{
	struct parts nf;
	struct config c;
	char said[256];
	pid_t pid;

	if (!wanted(config, named, entry, &c, &nf))
		return;
	if (netdoor) {
		if (netdoor_notify(netdoor, entry, said, sizeof(said)) < 0) {
			struct diag d = { 0 };

			diag_add(&d, "%s", said);
			(void) report_diag(&d, "the notifiers", "nobody was told of this crash");
		}
		config_free(&c);
		return;
	}
	/* Twice: the grandchild is nobody's to wait for, and the handler goes on to its end at once. */
	pid = fork();
	if (pid == 0) {
		(void) setsid();
		if (fork() == 0) {
			notify_now(&c, &nf, entry);
			_exit(0);
		}
		_exit(0);
	}
	if (pid > 0)
		(void) io_waitpid(pid, NULL);
	config_free(&c);
}

/* The door to the network's side: the notifiers told of the crash whose entry is entry, in this process. */
void notify_here(const char *config, bool named, const char *entry)
{
	struct parts nf;
	struct config c;

	if (!wanted(config, named, entry, &c, &nf))
		return;
	notify_now(&c, &nf, entry);
	config_free(&c);
}
