/*
 * show.c: coresinkctl list and info, in coredumpctl's columns and fields so that habits and scripts carry over:
 * list's TIME PID UID GID SIG COREFILE EXE SIZE and its --json keys (time, pid, uid, gid, sig, corefile, exe, size),
 * info's "Field: value" lines and the message with its stack trace. Every string comes from an entry and goes out
 * escaped: a crashing program chooses its comm and its command line.
 */
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "corefile.h"
#include "inflight.h"
#include "report.h"
#include "show.h"

#define SHOWN_MAX 4096

/* s escaped to one line of text (a control byte as \xNN). */
static const char *clean(const char *s, char *buf)
{
	(void) escape_text(buf, SHOWN_MAX, s, ESCAPE_BACKSLASH);
	return buf;
}

static void when(uint64_t usec, char *buf, size_t len)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || strftime(buf, len, "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
		(void) snprintf(buf, len, "@%" PRIu64, usec / 1000000);
}

/*
 * A size as coredumpctl writes it (18.7K, 4.0M, 512B: systemd's format_bytes(), IEC): the tenth digit truncated, not
 * rounded, and taken from the size in the next smaller unit, itself truncated: 4299748 bytes are 4.0M there, where
 * "%.1f" says 4.1M.
 */
void show_size(uint64_t bytes, char *buf, size_t len)
{
	int u = 0;   /* the unit, in powers of 1024: 1 K ... 5 P */

	while (u < 5 && bytes >> (10 * (u + 1)) > 0)
		u++;
	if (u == 0)
		(void) snprintf(buf, len, "%" PRIu64 "B", bytes);
	else
		(void) snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%c", bytes >> (10 * u),
				((bytes >> (10 * (u - 1))) * 10 >> 10) % 10, "KMGTP"[u - 1]);
}

static const char *sig_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;

	if (abbrev)
		(void) snprintf(buf, len, "SIG%s", abbrev);
	else
		(void) snprintf(buf, len, "%d", sig);
	return buf;
}

/* The captures in progress as JSON objects of list's keys, after n objects. */
static void now_json(FILE *f, const struct captures_now *now, size_t n, bool pretty)
{
	for (size_t i = 0; now && i < now->n; i++) {
		const struct capture_now *c = &now->c[i];

		fprintf(f, "%s%s{%s\"time\":%" PRIu64 ",\"pid\":%d,\"uid\":%u,\"gid\":%u,\"sig\":%d,\"corefile\":\"%s\","
			"\"size\":%" PRIu64 ",\"handler\":%d,\"mode\":\"%s\",\"comm\":", n + i ? "," : "",
			pretty ? "\n\t" : "", pretty ? "\n\t\t" : "", c->usec, (int)c->pid, (unsigned)c->uid,
			(unsigned)c->gid, c->sig, capture_state(c), c->bytes, (int)c->handler, c->socket ? "socket" : "pipe");
		escape_json(f, c->comm, strlen(c->comm));
		fputs(",\"exe\":", f);
		escape_json(f, c->exe, strlen(c->exe));
		fputs(pretty ? "\n\t}" : "}", f);
	}
}

/* One crash as list --json shows it: an object, on one line unless pretty (then indented by one tab). */
void show_record_json(FILE *f, const struct record *c, int dirfd, bool pretty)
{
	uint64_t size;
	enum core_state st = corefile_state(dirfd, c, &size);

	fprintf(f, "{%s\"time\":%" PRIu64 ",\"pid\":%d,\"uid\":%u,\"gid\":%u,\"sig\":%d,\"corefile\":\"%s\",\"exe\":",
		pretty ? "\n\t\t" : "", c->usec, (int)c->pid, (unsigned)c->uid, (unsigned)c->gid, c->sig,
		core_state_to_string(st));
	escape_json(f, c->exe, strlen(c->exe));
	if (st == CORE_PRESENT || st == CORE_TRUNCATED || st == CORE_INACCESSIBLE)
		fprintf(f, ",\"size\":%" PRIu64, size);
	fputs(pretty ? "\n\t}" : "}", f);
}

static void list_json(FILE *f, const struct found *found, int dirfd, const struct captures_now *now, bool pretty)
{
	fputc('[', f);
	for (size_t i = 0; i < found->n; i++) {
		fprintf(f, "%s%s", i ? "," : "", pretty ? "\n\t" : "");
		show_record_json(f, &found->c[i], dirfd, pretty);
	}
	now_json(f, now, found->n, pretty);
	fputs(pretty ? "\n]\n" : "]\n", f);
}

/* A capture in progress as a row of list: COREFILE says where it stands, SIZE what it holds so far. */
static void now_row(FILE *f, const struct capture_now *c)
{
	char t[64], sig[16], size[16], exe[SHOWN_MAX], comm[SHOWN_MAX], named[SHOWN_MAX + 4];

	when(c->usec, t, sizeof(t));
	show_size(c->bytes, size, sizeof(size));
	if (c->exe[0])
		(void) snprintf(named, sizeof(named), "%s", clean(c->exe, exe));
	else
		(void) snprintf(named, sizeof(named), "(%s)", clean(c->comm, comm));
	fprintf(f, "%-31s %7d %5u %5u %-8s %-12s %-28s %s\n", t, (int)c->pid, (unsigned)c->uid, (unsigned)c->gid,
		sig_name(c->sig, sig, sizeof(sig)), capture_state(c), named, size);
}

/*
 * list: a row per crash, oldest first (as coredumpctl), or the JSON array; then the captures in progress (now, or
 * NULL), their COREFILE "dumping" or "analysing".
 */
void show_list(FILE *f, const struct found *found, int dirfd, const struct captures_now *now, bool legend,
	       enum json_mode json)
{
	char t[64], sig[16], size[16], exe[SHOWN_MAX];

	if (json != JSON_OFF)
		return list_json(f, found, dirfd, now, json == JSON_PRETTY);
	if (legend)
		fprintf(f, "%-31s %7s %5s %5s %-8s %-12s %-28s %s\n", "TIME", "PID", "UID", "GID", "SIG", "COREFILE",
			"EXE", "SIZE");
	for (size_t i = 0; i < found->n; i++) {
		const struct record *c = &found->c[i];
		uint64_t bytes;
		enum core_state st = corefile_state(dirfd, c, &bytes);

		when(c->usec, t, sizeof(t));
		if (st == CORE_PRESENT || st == CORE_TRUNCATED || st == CORE_INACCESSIBLE)
			show_size(bytes, size, sizeof(size));
		else
			(void) snprintf(size, sizeof(size), "-");
		fprintf(f, "%-31s %7d %5u %5u %-8s %-12s %-28s %s\n", t, (int)c->pid, (unsigned)c->uid, (unsigned)c->gid,
			sig_name(c->sig, sig, sizeof(sig)), core_state_to_string(st), clean(c->exe[0] ? c->exe : "n/a", exe),
			size);
	}
	for (size_t i = 0; now && i < now->n; i++)
		now_row(f, &now->c[i]);
}

static void line(FILE *f, const char *key, const char *value)
{
	char buf[SHOWN_MAX];

	if (value && value[0])
		fprintf(f, "%14s: %s\n", key, clean(value, buf));
}

static const char *user_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	return pw ? pw->pw_name : "n/a";
}

static const char *group_name(gid_t gid)
{
	struct group *gr = getgrgid(gid);

	return gr ? gr->gr_name : "n/a";
}

/* The message, its lines indented under "Message:" as coredumpctl does; each line escaped on its own. */
static void message(FILE *f, const char *m)
{
	char buf[SHOWN_MAX];
	const char *p = m;
	bool first = true;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *one = strndup(p, n);

		fprintf(f, "%14s%s %s\n", first ? "Message" : "", first ? ":" : " ", one ? clean(one, buf) : "");
		free(one);
		first = false;
		p += n;
		p += *p == '\n';
	}
}

static void info_one(FILE *f, int dirfd, const struct record *c)
{
	char buf[SHOWN_MAX], v[SHOWN_MAX + 128], t[64], size[16];
	uint64_t bytes, stamp;
	enum core_state st = corefile_state(dirfd, c, &bytes);

	(void) snprintf(v, sizeof(v), "%d (%s)", (int)c->pid, clean(c->comm, buf));
	fprintf(f, "%14s: %s\n", "PID", v);
	fprintf(f, "%14s: %u (%s)\n", "UID", (unsigned)c->uid, user_name(c->uid));
	fprintf(f, "%14s: %u (%s)\n", "GID", (unsigned)c->gid, group_name(c->gid));
	fprintf(f, "%14s: %d (%s)\n", "Signal", c->sig, c->sig > 0 && sigabbrev_np(c->sig) ? sigabbrev_np(c->sig) : "?");
	when(parse_u64(c->timestamp, &stamp) == 0 && stamp ? stamp : c->usec, t, sizeof(t));
	fprintf(f, "%14s: %s\n", "Timestamp", t);
	line(f, "Command Line", c->cmdline);
	line(f, "Executable", c->exe);
	line(f, "Control Group", c->cgroup);
	line(f, "Unit", c->unit);
	line(f, "User Unit", c->user_unit);
	line(f, "Slice", c->slice);
	line(f, "Owner UID", c->owner_uid);
	line(f, "Boot ID", c->boot_id);
	line(f, "Machine ID", c->machine_id);
	line(f, "Hostname", c->hostname);
	if (c->container_id[0]) {
		(void) snprintf(v, sizeof(v), "%s (%s %.12s)", c->container_name[0] ? c->container_name : "-",
				c->runtime[0] ? c->runtime : "?", c->container_id);
		line(f, "Container", v);
		line(f, "Image", c->image);
	}
	if (c->pod_name[0] || c->pod_namespace[0]) {
		(void) snprintf(v, sizeof(v), "%s/%s", c->pod_namespace[0] ? c->pod_namespace : "-",
				c->pod_name[0] ? c->pod_name : "-");
		line(f, "Pod", v);
	}
	line(f, "Pod Labels", c->pod_labels);
	line(f, "Labels", c->labels);
	if (c->package_name[0]) {
		(void) snprintf(v, sizeof(v), "%s/%s", c->package_name, c->package_version[0] ? c->package_version : "n/a");
		line(f, "Package", v);
	}
	if (st == CORE_JOURNAL)
		fprintf(f, "%14s: journal\n", "Storage");
	else if (c->filename[0])
		fprintf(f, "%14s: %s (%s%s)\n", "Storage", clean(c->filename, buf), core_state_to_string(st),
			corefile_encrypted(c) ? ", encrypted: --identity reads it" : "");
	else
		fprintf(f, "%14s: none\n", "Storage");
	if (st == CORE_PRESENT || st == CORE_TRUNCATED || st == CORE_INACCESSIBLE) {
		show_size(bytes, size, sizeof(size));
		fprintf(f, "%14s: %s\n", "Size on Disk", size);
	}
	line(f, "Result", c->result);
	line(f, "Signature", c->signature);
	line(f, "Collected", c->collect);
	for (const char *h = c->hooks, *nl; h && *h; h = nl + 1) {
		char one[SHOWN_MAX];

		nl = strchr(h, '\n');
		if (!nl)
			break;
		(void) snprintf(one, sizeof(one), "%.*s", (int)(nl - h), h);
		line(f, "Hook", one);
	}
	message(f, c->message);
}

/* The hooks' fields as a JSON object, "KEY": "VALUE". */
static void hooks_json(FILE *f, const char *hooks)
{
	const char *h = hooks, *nl, *eq;
	bool first = true;

	fputc('{', f);
	for (; h && (nl = strchr(h, '\n')); h = nl + 1) {
		eq = memchr(h, '=', (size_t)(nl - h));
		if (!eq)
			continue;
		fputs(first ? "" : ",", f);
		escape_json(f, h, (size_t)(eq - h));
		fputc(':', f);
		escape_json(f, eq + 1, (size_t)(nl - eq - 1));
		first = false;
	}
	fputc('}', f);
}

static void info_json(FILE *f, int dirfd, const struct record *c, bool pretty)
{
	static const struct { const char *key; size_t off; } fields[] = {
		{ "Command", offsetof(struct record, comm) }, { "CommandLine", offsetof(struct record, cmdline) },
		{ "Executable", offsetof(struct record, exe) }, { "ControlGroup", offsetof(struct record, cgroup) },
		{ "Unit", offsetof(struct record, unit) }, { "Slice", offsetof(struct record, slice) },
		{ "BootID", offsetof(struct record, boot_id) }, { "MachineID", offsetof(struct record, machine_id) },
		{ "Hostname", offsetof(struct record, hostname) }, { "Storage", offsetof(struct record, filename) },
		{ "Result", offsetof(struct record, result) }, { "Signature", offsetof(struct record, signature) },
		{ "Message", offsetof(struct record, message) },
		{ "ContainerRuntime", offsetof(struct record, runtime) },
		{ "ContainerID", offsetof(struct record, container_id) },
		{ "ContainerName", offsetof(struct record, container_name) },
		{ "ContainerImage", offsetof(struct record, image) }, { "PodName", offsetof(struct record, pod_name) },
		{ "PodNamespace", offsetof(struct record, pod_namespace) },
		{ "PodLabels", offsetof(struct record, pod_labels) },
		{ "ContainerLabels", offsetof(struct record, labels) },
		{ "Collected", offsetof(struct record, collect) },
	};
	uint64_t bytes, stamp;
	enum core_state st = corefile_state(dirfd, c, &bytes);
	const char *sep = pretty ? ",\n\t" : ",";
	char ts[24] = "null";

	/* A number only where the entry's field is one: it is the entry's text, not this program's. */
	if (parse_u64(c->timestamp, &stamp) == 0)
		(void) snprintf(ts, sizeof(ts), "%" PRIu64, stamp);
	fprintf(f, "{%s\"PID\":%d%s\"UID\":%u%s\"GID\":%u%s\"Signal\":%d%s\"Timestamp\":%s%s\"CoreFile\":\"%s\"",
		pretty ? "\n\t" : "", (int)c->pid, sep, (unsigned)c->uid, sep, (unsigned)c->gid, sep, c->sig, sep,
		ts, sep, core_state_to_string(st));
	for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
		const char *v = *(const char *const *)((const char *)c + fields[i].off);

		fprintf(f, "%s\"%s\":", sep, fields[i].key);
		escape_json(f, v, strlen(v));
	}
	fprintf(f, "%s\"Hooks\":", sep);
	hooks_json(f, c->hooks);
	fputs(pretty ? "\n}\n" : "}\n", f);
}

/* info: every crash's fields and message, a blank line between them; or a JSON object per crash, one a line. */
void show_info(FILE *f, const struct found *found, int dirfd, enum json_mode json)
{
	for (size_t i = 0; i < found->n; i++) {
		if (json != JSON_OFF) {
			info_json(f, dirfd, &found->c[i], json == JSON_PRETTY);
			continue;
		}
		if (i)
			fputc('\n', f);
		info_one(f, dirfd, &found->c[i]);
	}
}
