/*
 * ship.c: a stored core taken elsewhere by ExecUpload=, once its entry is written and its process long let go.
 * Sent: the mark is cleared (and, with KeepAfterUpload=no, the core removed). Not sent: the core stays, marked
 * pending with the attempt and the time of the next one (upload.c's backoff); coresink --retry-uploads, run by
 * coresink-upload.timer, tries the pending cores whose time has come. Each attempt gets an entry of its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "tidy.h"
#include "report.h"
#include "netdoor.h"
#include "ship.h"
#include "store.h"

#define RULE_XATTR "user.coresink.rule"   /* the rule the crash got, for its retries */
#define POD_NS_XATTR "user.coresink.pod_namespace"   /* its pod's, for %N in a retry */
#define POD_NAME_XATTR "user.coresink.pod_name"      /* and for %O */

/* The pod's namespace and name, and the labels ExecUpload= names, noted on a core (upload_stored()), for a retry's
 * or the door's specifiers. */
struct pod_names {
	char ns[UNIT_NAME_MAX], name[UNIT_NAME_MAX];
	char labels[1024];      /* UPLOAD_LABELS_XATTR's words */
};

static void pod_names_read(int fd, struct pod_names *p)
{
	ssize_t n = fgetxattr(fd, POD_NS_XATTR, p->ns, sizeof(p->ns) - 1);

	p->ns[n > 0 ? n : 0] = '\0';
	n = fgetxattr(fd, POD_NAME_XATTR, p->name, sizeof(p->name) - 1);
	p->name[n > 0 ? n : 0] = '\0';
	n = fgetxattr(fd, UPLOAD_LABELS_XATTR, p->labels, sizeof(p->labels) - 1);
	p->labels[n > 0 ? n : 0] = '\0';
}

/* Runs the command for the core name (fd, read-only) with the crash's fields f. 0 or -errno (not started). */
static int run_once(const struct config *c, const char *path, int fd, const struct fields *f,
		    const struct upload_names *n, struct sandbox_result *res)
{
	char core_var[PATH_MAX + NAME_MAX + 32];
	const char *extra[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/", core_var, "CORESINK_JSON_FD=3", NULL };
	struct upload_job j = { .command = c->exec_upload, .n = *n, .corefd = fd,
				.timeout_ms = (unsigned)c->upload_timeout_ms };
	char *json, **env;
	int r;

	(void) snprintf(core_var, sizeof(core_var), "CORESINK_CORE=%s", path);
	json = crash_json(f);
	env = crash_env(f, extra);
	j.json = json;
	j.env = env;
	r = !json || !env ? -ENOMEM : upload_ids(c->upload_user, &j.uid, &j.gid);
	if (r == 0)
		r = upload_run(&j, res);
	free(json);
	crash_env_free(env);
	return r;
}

/* Whether the file open as fd was removed meanwhile (to make room for a newer core). */
static bool gone(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_nlink == 0;
}

/*
 * One attempt at sending the core name (open read-only as fd) in the directory dirfd, then its entry, then the mark
 * cleared or set (or the core removed, sent, with KeepAfterUpload=no). 0 sent, or -errno.
 */
int ship(const struct config *c, int dirfd, const char *name, int fd, const struct fields *f,
	 const struct upload_names *n, unsigned attempt)
{
	struct sandbox_result res = { 0 };
	char path[PATH_MAX + NAME_MAX + 2];
	uint64_t next = 0;
	int r, sent;

	(void) snprintf(path, sizeof(path), "%s/%s", c->directory, name);
	/* Pending from now on: a vacuum that removes it while it is being sent counts it as unsent. */
	(void) upload_mark(fd, attempt - 1, (uint64_t)time(NULL));
	r = run_once(c, path, fd, f, n, &res);
	sent = r == 0 && res.end == SANDBOX_DONE;
	if (!sent && !gone(fd))
		next = (uint64_t)time(NULL) + upload_backoff(attempt);
	(void) report_upload(n->pid, path, attempt, &res, r, next);
	sandbox_result_free(&res);
	if (!sent) {
		(void) upload_mark(fd, attempt, next);
		return r < 0 ? r : -EIO;
	}
	(void) upload_clear(fd);
	if (!c->keep_after_upload && unlinkat(dirfd, name, 0) == 0) {
		uint64_t freed;

		modstore_release(dirfd, name, &freed);
	}
	return 0;
}

/* This machine's host name, as one word of a path. */
static void host_name(char *buf, size_t len)
{
	char h[256] = "";

	(void) gethostname(h, sizeof(h) - 1);
	name_sanitize(h, buf, len);
}

/*
 * Socket mode: the upload goes on in a process of its own, so that the server's slot (SocketMaxParallel) is free for
 * the next crash at once: a storm while the network is down must not wait in the listen queue behind uploads that
 * wait for their deadline. 1 in the caller, which goes on at once; 2 in the process that uploads (and then exits);
 * 0 in pipe mode, or when no process could be made: the upload then runs here.
 */
static int detach(const struct crash *cr)
{
	pid_t pid;

	if (!cr->o.socket)
		return 0;
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid > 0)
		return 1;
	(void) setsid();
	return 2;
}

/*
 * Socket mode under its units: the core sent through the door to the network (netdoor.c), which runs the command.
 * Where the door cannot be asked, the core is marked pending, and said: coresink-upload.timer, which has the
 * network, sends it.
 */
static void upload_through(const struct crash *cr, const char *name, int fd, const struct fields *f)
{
	const struct sandbox_result none = { .end = SANDBOX_FAILED };
	char said[256], path[PATH_MAX + NAME_MAX + 2];
	uint64_t next;
	int r = netdoor_upload(cr->given.netdoor, name, f, (unsigned)cr->c.upload_timeout_ms, said, sizeof(said));

	if (r == 0)
		return;
	next = (uint64_t)time(NULL) + upload_backoff(1);
	(void) upload_mark(fd, 1, next);
	(void) snprintf(path, sizeof(path), "%s/%s", cr->c.directory, name);
	(void) report_upload(cr->given.k.pid, path, 1, &none, r, next);
}

/* The crash's stored core, sent: the rule it got noted on it for its retries, its entry's fields given. */
static void upload_stored(struct crash *cr)
{
	char host[NAME_COMM_MAX + 1], labels[sizeof(((struct pod_names *)0)->labels)];
	const char *name = strrchr(cr->o.path, '/') + 1;
	const struct container *ct = &cr->given.pi.ct;
	const struct upload_names n = { .file = name, .dir = cr->c.directory, .comm = cr->given.k.comm, .host = host,
					.pid = cr->given.k.pid, .uid = cr->given.k.uid, .time = cr->given.k.time,
					.pod_namespace = ct->pod_namespace, .pod_name = ct->pod_name,
					.labels = labels };
	struct fields f;
	_cleanup_close_ int fd = openat(cr->held.dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	if (cr->o.rule[0])
		(void) fsetxattr(fd, RULE_XATTR, cr->o.rule, strlen(cr->o.rule), 0);
	if (ct->pod_namespace[0])
		(void) fsetxattr(fd, POD_NS_XATTR, ct->pod_namespace, strlen(ct->pod_namespace), 0);
	if (ct->pod_name[0])
		(void) fsetxattr(fd, POD_NAME_XATTR, ct->pod_name, strlen(ct->pod_name), 0);
	upload_labels(cr->c.exec_upload, ct->labels, ct->pod_labels, labels, sizeof(labels));
	if (labels[0])
		(void) fsetxattr(fd, UPLOAD_LABELS_XATTR, labels, strlen(labels), 0);
	host_name(host, sizeof(host));
	report_fields(&cr->given.k, &cr->o, &cr->given.pi, &cr->a, &f);
	if (cr->given.netdoor)
		upload_through(cr, name, fd, &f);
	else
		(void) ship(&cr->c, cr->held.dirfd, name, fd, &f, &n, 1);
	fields_free(&f);
}

/* After the crash's entry: its stored core sent, when ExecUpload= is set and a core was published. */
void crash_upload(struct crash *cr)
{
	int where;

	if (!cr->c.exec_upload[0] || !strrchr(cr->o.path, '/') || cr->held.dirfd < 0)
		return;
	where = detach(cr);
	if (where == 1)
		return;
	upload_stored(cr);
	/* The process made for it ends here: the rest of the crash's end (the ledger above all) is its parent's. */
	if (where == 2)
		_exit(0);
}

/* A user.coredump.* attribute of the core, as the fields NAME=value; nothing when it has none. */
static void xattr_field(int fd, struct fields *f, const char *attr, const char *field)
{
	char v[1024];
	ssize_t n = fgetxattr(fd, attr, v, sizeof(v) - 1);

	if (n < 0)
		return;
	v[n] = '\0';
	fields_add(f, "%s=%s", field, v);
}

/* The fields a pending core's retry is given: what the core says of itself (xattr.c), and its name. */
static void pending_fields(int fd, const char *path, struct fields *f)
{
	static const char *const map[][2] = {
		{ "user.coredump.pid", "COREDUMP_PID" }, { "user.coredump.uid", "COREDUMP_UID" },
		{ "user.coredump.gid", "COREDUMP_GID" }, { "user.coredump.signal", "COREDUMP_SIGNAL" },
		{ "user.coredump.timestamp", "COREDUMP_TIMESTAMP" }, { "user.coredump.comm", "COREDUMP_COMM" },
		{ "user.coredump.exe", "COREDUMP_EXE" }, { "user.coredump.hostname", "COREDUMP_HOSTNAME" },
		{ RULE_XATTR, "CORESINK_RULE" }, { POD_NS_XATTR, "CORESINK_POD_NAMESPACE" },
		{ POD_NAME_XATTR, "CORESINK_POD_NAME" },
	};

	fields_init(f, LOG_INFO);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		xattr_field(fd, f, map[i][0], map[i][1]);
	fields_add(f, "COREDUMP_FILENAME=%s", path);
}

/* The config the crash got: the rule named on the core, when there still is one of that name. */
static void pending_config(const struct config *base, int fd, struct config *c)
{
	char rule[RULE_NAME_MAX];
	ssize_t n = fgetxattr(fd, RULE_XATTR, rule, sizeof(rule) - 1);

	*c = *base;
	if (n <= 0)
		return;
	rule[n] = '\0';
	for (unsigned i = 0; i < base->n_rules; i++)
		if (!base->rules[i].bad && strcmp(base->rules[i].name, rule) == 0)
			config_apply_rule(c, &base->rules[i]);
}

/* Retries one core, if it is pending and its time has come (or all). 1 tried, 0 not, or -errno. */
static int retry_one(const struct config *base, int dirfd, const char *name, bool all)
{
	char host[NAME_COMM_MAX + 1], path[PATH_MAX + NAME_MAX + 2];
	struct name_parts np;
	struct config c;
	struct fields f;
	unsigned attempts;
	uint64_t next;
	_cleanup_close_ int fd = -1;
	int r;

	if (name_parse(name, &np) < 0)
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = upload_pending(fd, &attempts, &next);
	pending_config(base, fd, &c);
	if (r == 1 && (all || next <= (uint64_t)time(NULL)) && c.exec_upload[0]) {
		struct pod_names pod;
		const struct upload_names n = { .file = name, .dir = c.directory, .comm = np.comm, .host = host,
						.pid = np.pid, .time = np.time, .pod_namespace = pod.ns,
						.pod_name = pod.name, .labels = pod.labels };

		pod_names_read(fd, &pod);

		host_name(host, sizeof(host));
		(void) snprintf(path, sizeof(path), "%s/%s", c.directory, name);
		pending_fields(fd, path, &f);
		(void) ship(&c, dirfd, name, fd, &f, &n, attempts + 1);
		fields_free(&f);
		r = 1;
	} else {
		r = r < 0 ? r : 0;
	}
	return r;
}

/* A user.coredump.* number of the core's, or 0. */
static uint64_t xattr_number(int fd, const char *attr)
{
	char v[32];
	ssize_t n = fgetxattr(fd, attr, v, sizeof(v) - 1);
	uint64_t x = 0;

	if (n > 0) {
		v[n] = '\0';
		(void) parse_u64(v, &x);
	}
	return x;
}

/*
 * The door to the network's side of an upload (netdoor.c): the stored core name of config's Directory sent, its
 * rule read from the core as a retry reads it, f (the crash's entry's fields, as the capture had them) given to the
 * command. The first attempt. 0 sent, or -errno (-EINVAL: not a core's name, -EIO: not sent, its entry says why).
 */
int ship_named(const char *config, bool named, const char *name, const struct fields *f)
{
	char host[NAME_COMM_MAX + 1];
	struct name_parts np;
	struct config base, c;
	struct diag d = { 0 };
	struct stat st;
	_cleanup_close_ int dirfd = -1, fd = -1;
	int r;

	if (name_parse(name, &np) < 0 || strchr(name, '/'))
		return -EINVAL;
	config_read(&base, config, named, &d);
	dirfd = store_open_dir(base.directory);
	r = dirfd < 0 ? dirfd : (fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0 ? -errno : 0;
	if (r == 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0))
		r = -EINVAL;
	if (r == 0) {
		struct pod_names pod;
		const struct upload_names n = { .file = name, .dir = base.directory, .comm = np.comm, .host = host,
						.pid = np.pid, .uid = (uid_t)xattr_number(fd, "user.coredump.uid"),
						.time = np.time, .pod_namespace = pod.ns, .pod_name = pod.name,
						.labels = pod.labels };

		pod_names_read(fd, &pod);

		pending_config(&base, fd, &c);
		host_name(host, sizeof(host));
		r = c.exec_upload[0] ? ship(&c, dirfd, name, fd, f, &n, 1) : -ENOEXEC;
	}
	config_free(&base);
	return r;
}

/*
 * coresink --retry-uploads: every pending core of Directory whose time has come (all of them with all) is tried
 * once more. The number tried, or -errno when the directory cannot be read.
 */
int ship_retry(const char *config, bool named, bool all)
{
	struct config c;
	struct diag d = { 0 };
	struct dirent *e;
	_cleanup_close_ int dirfd = -1;
	int tried = 0;
	DIR *dir;

	config_read(&c, config, named, &d);
	dirfd = store_open_dir(c.directory);
	dir = dirfd >= 0 ? fdopendir(fcntl(dirfd, F_DUPFD_CLOEXEC, 3)) : NULL;
	if (!dir) {
		int r = dirfd < 0 ? dirfd : -errno;

		config_free(&c);
		return r;
	}
	while ((e = readdir(dir)))
		tried += retry_one(&c, dirfd, e->d_name, all) > 0;
	(void) closedir(dir);
	config_free(&c);
	return tried;
}
