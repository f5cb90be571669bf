/*
 * fuzz_podmandb.c: libFuzzer harness for the reader of podman 5's database (intake/podmandb.c), the input a
 * database file: whatever SQLite makes of it under the reader's settings, the reader returns, in bounded time, a
 * pod's name that is clean text or none, and labels within their fields. Seeded with a database of podman's two tables (corpus/podmandb). As root
 * (the reader takes root's files only), as make check-all runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "intake/podmandb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ID2 "72cd1a14bf8249aa8e1e0a2c1f3b5d7e9f0a1b2c3d4e5f60718293a4b5c6d7e8"

static bool made;
static char dir[] = "/tmp/fuzz-podmandb-XXXXXX";

/* The scratch directory gone when the fuzzer ends. */
static void tidy(void)
{
	static const char *const names[] = { "db.sql", "db.sql-wal", "db.sql-shm", "db.sql-journal" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		(void) snprintf(path, sizeof(path), "%s/%s", dir, names[i]), (void) unlink(path);
	(void) rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[PATH_MAX], side[PATH_MAX + 8];
	struct podman_rows rows = { .pod = "" };
	const char *why = NULL;
	int fd, r;

	/* Made once. (Not told by the template's last letter: mkdtemp's is an X one time in 62, run 57's finding.) */
	if (!made && (!mkdtemp(dir) || atexit(tidy) != 0))
		abort();
	made = true;
	(void) snprintf(path, sizeof(path), "%s/db.sql", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) < 0)
		abort();
	/* A WAL of an earlier input is not this one's. */
	(void) snprintf(side, sizeof(side), "%s-wal", path), (void) unlink(side);
	(void) snprintf(side, sizeof(side), "%s-shm", path), (void) unlink(side);
	r = podman_db_read(path, 0, ID2, &rows, &why);
	/* A pod is named by clean text, or not at all; labels are what SQLite's json_extract gave, within their field. */
	if (r == 0 && rows.pod[0] && (!rows.pod_name[0] || !escape_clean(rows.pod_name)))
		abort();
	if (strlen(rows.labels) >= sizeof(rows.labels) || strlen(rows.pod_labels) >= sizeof(rows.pod_labels))
		abort();
	if (r < 0 && r != -EIO)
		abort();
	if (r == -EIO && (!why || !why[0] || rows.pod_name[0] || rows.labels[0]))
		abort();
	return 0;
}
