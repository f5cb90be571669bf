/*
 * promfile.c: the counters (metrics.c) and the core directory's state in Prometheus's text exposition format
 * (version 0.0.4), for coresinkctl metrics and for MetricsFile=: node_exporter's textfile collector serves that file,
 * so that a host's crashes are watched with no daemon of coresink's. The file is written whole beside it under a
 * hidden name and renamed over the old one: a scrape reads the last file or the one before, never half of one.
 * Labels are bounded: a result and a reason of a fixed set, a signal of the ten that dump a core; no pid, path,
 * executable or signature (a crash loop of new signatures would make a series per crash).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "metrics.h"
#include "store.h"
#include "tidy.h"

/* node_exporter's textfile directory as Debian's prometheus-node-exporter package sets it (its ARGS default). */
#define AUTO_DIR "/var/lib/prometheus/node-exporter"
#define AUTO_NAME "coresink.prom"

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP coresink_%s %s\n# TYPE coresink_%s %s\n", name, help, name, type);
}

static void counters(FILE *f, const struct metrics *m)
{
	uint64_t sum = 0;

	head(f, "crashes_total", "counter", "Crashes handled, by what became of the core (the entry's CORESINK_RESULT) "
	     "and why it was not stored whole.");
	for (int i = 0; i < _RESULT_MAX; i++)
		for (int j = 0; j < _REASON_MAX; j++)
			/* The ones seen, and the stored ones always: a series that exists from the start. */
			if (m->crashes[i][j] || (i == RESULT_STORED && j == REASON_NONE))
				fprintf(f, "coresink_crashes_total{result=\"%s\",reason=\"%s\"} %" PRIu64 "\n",
					result_to_string(i), metrics_reason_name(j), m->crashes[i][j]);
	head(f, "crashes_by_signal_total", "counter", "Crashes handled, by the signal that dumped the core.");
	for (size_t k = 0; k < METRICS_SIGNALS + 2; k++)
		if (m->signals[k] || k == 0)
			fprintf(f, "coresink_crashes_by_signal_total{signal=\"%s\"} %" PRIu64 "\n", metrics_signal_name(k),
				m->signals[k]);
	head(f, "input_bytes_total", "counter", "Bytes of cores the kernel gave.");
	fprintf(f, "coresink_input_bytes_total %" PRIu64 "\n", m->input);
	head(f, "written_bytes_total", "counter", "Bytes the stored cores take on disk, as written.");
	fprintf(f, "coresink_written_bytes_total %" PRIu64 "\n", m->written);
	head(f, "removed_cores_total", "counter", "Old cores removed to make room for new ones (MaxUse=, KeepFree=).");
	fprintf(f, "coresink_removed_cores_total %" PRIu64 "\n", m->removed);
	head(f, "removed_bytes_total", "counter", "Bytes of the old cores removed to make room.");
	fprintf(f, "coresink_removed_bytes_total %" PRIu64 "\n", m->removed_bytes);
	head(f, "kernel_dropped_total", "counter", "Crashes the kernel did not hand over (pipe mode: "
	     "kernel.core_pipe_limit reached), as counted by the next handler.");
	fprintf(f, "coresink_kernel_dropped_total %" PRIu64 "\n", m->events[EVENT_KERNEL_DROPPED]);
	head(f, "refused_total", "counter", "Socket mode: crashes refused at the door (the server's limits).");
	fprintf(f, "coresink_refused_total %" PRIu64 "\n", m->events[EVENT_REFUSED]);
	head(f, "lost_total", "counter", "Crashes whose handler died before their entry, found and said by a later one.");
	fprintf(f, "coresink_lost_total %" PRIu64 "\n", m->events[EVENT_LOST]);
	head(f, "capture_seconds", "histogram", "Time from the handler's start to the crashed process let go.");
	for (int b = 0; b <= METRICS_BUCKETS; b++) {
		sum += m->buckets[b];
		if (b < METRICS_BUCKETS)
			fprintf(f, "coresink_capture_seconds_bucket{le=\"%g\"} %" PRIu64 "\n", metrics_bounds[b], sum);
		else
			fprintf(f, "coresink_capture_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n", sum);
	}
	fprintf(f, "coresink_capture_seconds_sum %.6f\ncoresink_capture_seconds_count %" PRIu64 "\n",
		(double)m->capture_us / 1e6, sum);
	head(f, "last_crash_timestamp_seconds", "gauge", "When the last crash handled happened (0: none yet).");
	fprintf(f, "coresink_last_crash_timestamp_seconds %" PRIu64 "\n", m->last_time);
}

/* What the directory holds now, against its limits. */
static void gauges(FILE *f, int dirfd, const struct config *c)
{
	struct vacuum_core *list;
	struct side_space l;
	uint64_t bytes = 0, used = 0;
	int n = vacuum_list(dirfd, &list);

	if (n >= 0) {
		for (int i = 0; i < n; i++)
			bytes += list[i].o.bytes;
		free(list);
		head(f, "cores", "gauge", "Cores kept in the directory.");
		fprintf(f, "coresink_cores %d\n", n);
		head(f, "cores_bytes", "gauge", "What the cores kept take on disk.");
		fprintf(f, "coresink_cores_bytes %" PRIu64 "\n", bytes);
	}
	if (vacuum_total(dirfd, &used) == 0) {
		head(f, "used_bytes", "gauge", "What counts against MaxUse=: the cores and the modules kept for them.");
		fprintf(f, "coresink_used_bytes %" PRIu64 "\n", used);
	}
	if (config_limits(c, dirfd, &l) == 0) {
		head(f, "max_use_bytes", "gauge", "MaxUse= as it resolves on this file system.");
		fprintf(f, "coresink_max_use_bytes %" PRIu64 "\n", l.max_use);
		head(f, "free_bytes", "gauge", "Free space of the cores' file system, as an unprivileged writer sees it.");
		fprintf(f, "coresink_free_bytes %" PRIu64 "\n", l.avail);
		head(f, "keep_free_bytes", "gauge", "KeepFree=, the reserve no core may take, as it resolves.");
		fprintf(f, "coresink_keep_free_bytes %" PRIu64 "\n", l.keep_free);
		head(f, "size_bytes", "gauge", "Size of the cores' file system.");
		fprintf(f, "coresink_size_bytes %" PRIu64 "\n", l.total);
	}
}

/* The exposition: the counters m, then the directory dirfd's state. 0 or -errno of the stream. */
int metrics_print(FILE *f, int dirfd, const struct config *c, const struct metrics *m)
{
	counters(f, m);
	gauges(f, dirfd, c);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

/*
 * Where the exposition goes: MetricsFile= into path (len bytes); "auto": AUTO_DIR's AUTO_NAME where that directory
 * exists. 0, or -ENOENT when none is to be written.
 */
int metrics_file(const struct config *c, char *path, size_t len)
{
	struct stat st;

	if (c->metrics_file[0] == '\0')
		return -ENOENT;
	if (strcmp(c->metrics_file, "auto") != 0)
		return snprintf(path, len, "%s", c->metrics_file) < (int)len ? 0 : -ENAMETOOLONG;
	if (stat(AUTO_DIR, &st) < 0 || !S_ISDIR(st.st_mode))
		return -ENOENT;
	return snprintf(path, len, "%s/%s", AUTO_DIR, AUTO_NAME) < (int)len ? 0 : -ENAMETOOLONG;
}

/*
 * The directory of path, walked from / without following a link at any step, and taken only when root owns it and
 * nobody else may write it: root writes there, and no other user may choose where (a link planted in node_exporter's
 * tree, say). Its fd, with the file's name in *base; or -errno.
 */
static int open_parent(char *path, const char **base)
{
	char *slash = strrchr(path, '/'), *p, *save = NULL;
	int fd, next;

	if (!slash || !slash[1])
		return -EINVAL;
	*slash = '\0';
	*base = slash + 1;
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (p = strtok_r(path, "/", &save); p && fd >= 0; p = strtok_r(NULL, "/", &save)) {
		next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		(void) close(fd);
		fd = next;
	}
	return store_root_dir(fd);
}

/* The text into a new hidden file of dir, 0644 (node_exporter runs as its own user), renamed over base. */
static int replace(int dir, const char *base, const char *text, size_t n)
{
	char tmp[64];
	_cleanup_close_ int fd = -1;
	int r;

	(void) snprintf(tmp, sizeof(tmp), ".%s.%d", base, (int)getpid());
	tmp[sizeof(tmp) - 1] = '\0';
	(void) unlinkat(dir, tmp, 0);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = fchmod(fd, 0644) < 0 ? -errno : io_write_full(fd, text, n);
	if (r == 0 && renameat(dir, tmp, dir, base) < 0)
		r = -errno;
	if (r < 0)
		(void) unlinkat(dir, tmp, 0);
	return r;
}

/* Rewrites MetricsFile= (where one is to be written) from m and the directory dirfd's state. 0 or -errno. */
int metrics_export(int dirfd, const struct config *c, const struct metrics *m)
{
	char path[PATH_MAX], *text = NULL;
	const char *base;
	size_t n = 0;
	FILE *f;
	_cleanup_close_ int dir = -1;
	int r = metrics_file(c, path, sizeof(path));

	if (r < 0)
		return r == -ENOENT ? 0 : r;
	f = open_memstream(&text, &n);
	if (!f)
		return -ENOMEM;
	r = metrics_print(f, dirfd, c, m);
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	dir = r < 0 ? r : open_parent(path, &base);
	r = dir >= 0 ? replace(dir, base, text, n) : dir;
	free(text);
	return r;
}
