/*
 * podmandb.c: a container's pod as podman 5 records it, in its SQLite database (db.sql beside containers/storage's
 * files, WAL mode), read through SQLite itself: the pod's id as the container's row holds it (ContainerConfig.PodID),
 * then the pod's name and its config's JSON (PodConfig). A pod made a second before the crash is in the WAL, which a
 * reader sees (immutable=1 would not). The file is another program's and is read as hostile input: a regular file
 * owned by root, not reached through a link, opened read-only with SQLite's defensive settings (no views, triggers
 * or schema functions to run, cells checked), in bounded memory, and for PODMAN_DB_MS at most, podman's lock
 * included: a busy database answers nothing rather than hold the crashed process.
 *
 * libsqlite3 is loaded (dlopen) only where a db.sql is there to read: linked, it cost every capture 0.6 ms and 740 KiB
 * of peak RSS (the handler's bound is 8 MiB) for the few crashes in a podman 5 container. Only its header is built
 * against; the package depends on libsqlite3-0.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "cgroup.h"
#include "podmandb.h"

#define PODMAN_DB_MS 100               /* a statement's time, and apart the wait on podman's lock */
#define PODMAN_DB_HEAP (4LL << 20)     /* SQLite's memory, the page cache included */
#define PODMAN_DB_VALUE (256 << 10)    /* a row's value: a pod's config is a few KiB */

/* The functions of libsqlite3 used here, found once in the library loaded where a database is to be read. */
static struct {
	int (*open_v2)(const char *, sqlite3 **, int, const char *);
	int (*close_v2)(sqlite3 *);
	int (*db_config)(sqlite3 *, int, ...);
	int (*limit)(sqlite3 *, int, int);
	void (*progress_handler)(sqlite3 *, int, int (*)(void *), void *);
	int (*busy_timeout)(sqlite3 *, int);
	int (*exec)(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **);
	int (*prepare_v2)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
	int (*bind_text)(sqlite3_stmt *, int, const char *, int, void (*)(void *));
	int (*step)(sqlite3_stmt *);
	const unsigned char *(*column_text)(sqlite3_stmt *, int);
	int (*column_bytes)(sqlite3_stmt *, int);
	int (*finalize)(sqlite3_stmt *);
	const char *(*errstr)(int);
	sqlite3_int64 (*hard_heap_limit64)(sqlite3_int64);
} sql;

/*
 * libsqlite3 loaded and its functions found: 0, or -ENOENT where it is not installed (or not whole). Once: a caller
 * that reads a database in a sandbox whose seccomp filter maps nothing executable loads it before the fork.
 */
int podman_db_load(void)
{
	static const char *const names[] = { "sqlite3_open_v2", "sqlite3_close_v2", "sqlite3_db_config",
		"sqlite3_limit", "sqlite3_progress_handler", "sqlite3_busy_timeout", "sqlite3_exec", "sqlite3_prepare_v2",
		"sqlite3_bind_text", "sqlite3_step", "sqlite3_column_text", "sqlite3_column_bytes", "sqlite3_finalize",
		"sqlite3_errstr", "sqlite3_hard_heap_limit64" };
	static void *lib;
	void **fn = (void **)&sql;

	_Static_assert(sizeof(sql) == sizeof(names) / sizeof(names[0]) * sizeof(void *), "one name per function");
	if (lib)
		return 0;
	lib = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 0; lib && i < ELEMENTSOF(names); i++)
		if (!(fn[i] = dlsym(lib, names[i]))) {
			(void) dlclose(lib);
			lib = NULL;
		}
	return lib ? 0 : -ENOENT;
}

/* The progress handler's deadline: a statement still running past it is interrupted. */
static int past(void *deadline)
{
	return clock_ms() >= *(uint64_t *)deadline;
}

/* SQLite's settings for a file it did not write: nothing in it is run, and nothing it says is trusted long. */
static int harden(sqlite3 *db, uint64_t *deadline)
{
	static const int off[] = { SQLITE_DBCONFIG_ENABLE_TRIGGER, SQLITE_DBCONFIG_ENABLE_VIEW,
				   SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION };
	int r = sql.db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);

	for (size_t i = 0; r == SQLITE_OK && i < ELEMENTSOF(off); i++)
		r = sql.db_config(db, off[i], 0, NULL);
	(void) sql.limit(db, SQLITE_LIMIT_LENGTH, PODMAN_DB_VALUE);
	(void) sql.limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sql.progress_handler(db, 1000, past, deadline);
	if (r == SQLITE_OK)
		r = sql.busy_timeout(db, PODMAN_DB_MS);
	if (r == SQLITE_OK)
		r = sql.exec(db, "PRAGMA cell_size_check=ON; PRAGMA mmap_size=0; PRAGMA cache_size=-512;"
				 "PRAGMA query_only=ON;", NULL, NULL, NULL);
	return r;
}

/* The text of column i of the row into out, whole or not at all (then ""). */
static void column(sqlite3_stmt *s, int i, char *out, size_t len)
{
	const unsigned char *t = sql.column_text(s, i);
	int n = sql.column_bytes(s, i);

	out[0] = '\0';
	if (t && n >= 0 && (size_t)n < len && strlen((const char *)t) == (size_t)n)
		memcpy(out, t, (size_t)n + 1);
}

/* One row of query with text parameter arg into the columns given (n of them, each out[i] of len[i]). SQLite's code. */
static int row(sqlite3 *db, const char *query, const char *arg, unsigned n, char **out, const size_t *len)
{
	sqlite3_stmt *s = NULL;
	int r = sql.prepare_v2(db, query, -1, &s, NULL);

	if (r == SQLITE_OK)
		r = sql.bind_text(s, 1, arg, -1, SQLITE_STATIC);
	if (r == SQLITE_OK)
		r = sql.step(s);
	if (r == SQLITE_ROW)
		for (unsigned i = 0; i < n; i++)
			column(s, (int)i, out[i], len[i]);
	(void) sql.finalize(s);
	return r == SQLITE_ROW ? SQLITE_OK : r == SQLITE_DONE ? SQLITE_NOTFOUND : r;
}

/* Why SQLite said no, in a few words, for CORESINK_POD_FROM. */
static const char *why(int r)
{
	switch (r & 0xff) {
	case SQLITE_NOTFOUND: return "no such container or pod";
	case SQLITE_CANTOPEN: return "cannot be opened";
	case SQLITE_BUSY: case SQLITE_LOCKED: return "locked by podman";
	case SQLITE_INTERRUPT: return "no answer in time";
	case SQLITE_NOMEM: return "too large";
	case SQLITE_CORRUPT: case SQLITE_NOTADB: case SQLITE_ERROR: return "not podman's database";
	default: return sql.errstr(r);
	}
}

/*
 * The database named (a path, or a file: URI where uri), opened and asked of container id: its name, image and
 * labels, its pod's id where rows->pod is "" (none where it is in no pod), then that pod's name and labels (SQLite's
 * json_extract: the rest of a config, its OCI spec among it, is never copied out). SQLite's code.
 */
static int lookup(const char *name_or_uri, bool uri, const char *id, struct podman_rows *rows)
{
	uint64_t deadline = clock_ms() + PODMAN_DB_MS;
	char pod[sizeof(rows->pod)] = "";
	sqlite3 *db = NULL;
	int r = sql.open_v2(name_or_uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_PRIVATECACHE |
			    (uri ? SQLITE_OPEN_URI : 0), NULL);

	if (r == SQLITE_OK)
		r = harden(db, &deadline);
	if (r == SQLITE_OK)
		r = row(db, "SELECT Name, IFNULL(json_extract(JSON, '$.rootfsImageName'), ''), IFNULL(PodID, ''), "
			"IFNULL(json_extract(JSON, '$.labels'), '') FROM ContainerConfig WHERE ID = ?1", id, 4,
			(char *[]) { rows->name, rows->image, pod, rows->labels },
			(size_t[]) { sizeof(rows->name), sizeof(rows->image), sizeof(pod), sizeof(rows->labels) });
	if (r == SQLITE_OK && !rows->pod[0])
		memcpy(rows->pod, pod, sizeof(pod));
	if (r == SQLITE_OK && rows->pod[0] && !cgroup_hex_id(rows->pod, strlen(rows->pod)))
		r = SQLITE_CORRUPT;
	if (r == SQLITE_OK && rows->pod[0])
		r = row(db, "SELECT Name, IFNULL(json_extract(JSON, '$.labels'), '') FROM PodConfig WHERE ID = ?1",
			rows->pod, 2, (char *[]) { rows->pod_name, rows->pod_labels },
			(size_t[]) { sizeof(rows->pod_name), sizeof(rows->pod_labels) });
	if (r == SQLITE_OK && rows->pod[0] && (!rows->pod_name[0] || !escape_clean(rows->pod_name)))
		r = SQLITE_CORRUPT;
	(void) sql.close_v2(db);
	return r;
}

/* path as a file: URI that opens it immutable (every byte but [A-Za-z0-9/._-] percent-encoded). 0 or -ENAMETOOLONG. */
static int immutable_uri(const char *path, char *uri, size_t len)
{
	size_t n = 0;

	/* 3 bytes at most a byte of the path, and the query after. */
	if (strlen(path) * 3 + sizeof("file:?immutable=1") > len)
		return -ENAMETOOLONG;
	n += (size_t)sprintf(uri, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		n += (size_t)((*p < 128 && (isalnum(*p) || strchr("/._-", *p))) ? sprintf(uri + n, "%c", *p) :
				sprintf(uri + n, "%%%02X", *p));
	(void) sprintf(uri + n, "?immutable=1");
	return 0;
}

/*
 * What podman's database at path says of container id (rows->pod: its pod's id where the cgroup gave it, else ""):
 * its name, image and labels, its pod's id, name and labels (rows, "" where none). 0, -ENOENT where there is no
 * database at path, or -EIO with why in *said (rows then all "" but the pod's id as given). The file must be a
 * regular file of owner's (IO_ANY_OWNER: its owner checked by the caller); SQLite opens it again by its name, so
 * the check holds against a file swapped in between only where the directory is root's (root's podman's), and a
 * user's (rootless podman's) is read as that user, who may read it anyway.
 */
int podman_db_read(const char *path, uid_t owner, const char *id, struct podman_rows *rows, const char **said)
{
	char side[PATH_MAX], uri[3 * PATH_MAX], given[sizeof(rows->pod)];
	int r;

	memcpy(given, rows->pod, sizeof(given));
	rows->name[0] = rows->image[0] = rows->pod_name[0] = rows->pod_labels[0] = rows->labels[0] = '\0';
	r = io_file_of(path, owner);
	if (r == -ENOENT)
		return r;
	if (r < 0) {
		*said = owner ? "not a file of its user's" : "not a file of root's";
		return -EIO;
	}
	if (podman_db_load() < 0) {
		*said = "no libsqlite3.so.0";
		return -EIO;
	}
	(void) sql.hard_heap_limit64(PODMAN_DB_HEAP);
	r = lookup(path, false, id, rows);
	/*
	 * A reader of a WAL database needs its -shm, and makes one where there is none: socket mode's server cannot
	 * (ProtectSystem=strict makes /var read-only to it). Where no -wal is there either, podman checkpointed it all
	 * into the file when it closed, and the file alone, read as immutable, is the whole database.
	 */
	if ((r & 0xff) == SQLITE_CANTOPEN && (size_t)snprintf(side, sizeof(side), "%s-wal", path) < sizeof(side) &&
	    access(side, F_OK) < 0 && errno == ENOENT && immutable_uri(path, uri, sizeof(uri)) == 0)
		r = lookup(uri, true, id, rows);
	if (r == SQLITE_OK)
		return 0;
	memcpy(rows->pod, given, sizeof(given));
	rows->name[0] = rows->image[0] = rows->pod_name[0] = rows->pod_labels[0] = rows->labels[0] = '\0';
	*said = why(r);
	return -EIO;
}
