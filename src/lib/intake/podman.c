/*
 * podman.c: what podman recorded of a container: its own database first (podman 4's BoltDB, podman 5's SQLite:
 * podmandb.c), which holds the container's name, image and labels and its pod's, then containers/storage's
 * containers.json where the database does not hold it, and podman's API for a pod where neither says (root's
 * podman only). A user's own podman (rootless) is read the same way, beneath their home, in a sandbox's child
 * running as them: runtime_user_write() there, runtime_user_take() back in the handler.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "labels.h"
#include "podmandb.h"
#include "runtime-internal.h"

#define GRAPH_USER "/.local/share/containers/storage"   /* beneath a user's home: rootless podman's */
#define STORAGE_LIST "/overlay-containers/containers.json"   /* beneath a graph root */
#define PODMAN_DB "/libpod/bolt_state.db"                    /* podman 4's */
#define PODMAN_SQLITE "/db.sql"                              /* podman 5's */
#define PODMAN_API "/run/podman/podman.sock"     /* podman.socket's, root's */
#define PODMAN_API_MS 250                        /* a pod's name is worth this much of the release, no more */
#define API_ANSWER_MAX (64u << 10)

/* The file of g's (its path beneath g->root) into buf: buf, or "" where it does not fit (then no file opens). */
static const char *in_graph(const struct graph *g, const char *file, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s%s", g->dir, file) >= len)
		buf[0] = '\0';
	return buf;
}

/* containers/storage's record of the container (podman, CRI-O): its name, and the image and pod its metadata name. */
bool rt_storage(struct container *c, const struct graph *g, const char *runtime)
{
	char path[PATH_MAX], id[80], metadata[8192];
	struct json_object *e = NULL, *v, *meta;
	struct json_object *doc = rt_json(g->root, in_graph(g, STORAGE_LIST, path, sizeof(path)), STORAGE_MAX);
	bool found = false;
	size_t n;

	if (!doc)
		return false;
	n = json_object_is_type(doc, json_type_array) ? json_object_array_length(doc) : 0;
	for (size_t i = 0; !found && i < n; i++) {
		e = json_object_array_get_idx(doc, i);
		found = jdoc_member(e, "id", &v) == 0 && jdoc_text(v, id, sizeof(id)) == 0 && strcmp(id, c->id) == 0;
	}
	if (found) {
		if (jdoc_member(e, "names", &v) == 0 && json_object_is_type(v, json_type_array) &&
		    json_object_array_length(v) > 0)
			(void) jdoc_text(json_object_array_get_idx(v, 0), c->name, sizeof(c->name));
		/* Its metadata is JSON in a string. */
		if (jdoc_member(e, "metadata", &v) == 0 && jdoc_text(v, metadata, sizeof(metadata)) == 0 &&
		    (meta = jdoc_parse(metadata, strlen(metadata)))) {
			rt_take(meta, "image-name", NULL, c->image, sizeof(c->image));
			rt_take(meta, "pod-name", NULL, c->pod_name, sizeof(c->pod_name));
			json_object_put(meta);
		}
		rt_said(c, runtime, "containers.json");
	}
	json_object_put(doc);
	if (found && c->pod_name[0])
		(void) snprintf(c->pod_from, sizeof(c->pod_from), "containers.json");
	return found;
}

/* The pod's record in podman 4's database (BoltDB: pod/ID, config), c->pod's: its name and labels. Whether it had it. */
static bool podman_bolt_pod(struct container *c, const struct graph *g)
{
	const char *pod[] = { "pod", c->pod };
	struct json_object *doc = NULL;
	char path[PATH_MAX];
	size_t len;
	char *text = rt_bolt_value(g->root, in_graph(g, PODMAN_DB, path, sizeof(path)), pod, 2, "config", &len);

	if (text && (doc = jdoc_parse(text, len))) {
		rt_take(doc, "name", NULL, c->pod_name, sizeof(c->pod_name));
		rt_take_labels(doc, "labels", NULL, c->pod_labels, sizeof(c->pod_labels));
		(void) snprintf(c->pod_from, sizeof(c->pod_from), "bolt_state.db");
	}
	json_object_put(doc);
	free(text);
	return doc != NULL;
}

/*
 * podman 4's database (BoltDB): the container's record (ctr/ID: its config's name, rootfsImageName and labels; its
 * pod-id where the cgroup did not give the pod's: a pod without an infra container has no cgroup of its own, its
 * containers lie beside any other), then its pod's. Whether it holds the container.
 */
static bool podman_bolt(struct container *c, const struct graph *g)
{
	const char *ctr[] = { "ctr", c->id };
	struct json_object *doc;
	char path[PATH_MAX];
	size_t len;
	char *text;

	(void) in_graph(g, PODMAN_DB, path, sizeof(path));
	if (!(text = rt_bolt_value(g->root, path, ctr, 2, "config", &len)))
		return false;
	doc = jdoc_parse(text, len);
	free(text);
	if (!doc)
		return false;
	rt_take(doc, "name", NULL, c->name, sizeof(c->name));
	rt_take(doc, "rootfsImageName", NULL, c->image, sizeof(c->image));
	rt_take_labels(doc, "labels", NULL, c->labels, sizeof(c->labels));
	json_object_put(doc);
	rt_said(c, "podman", "bolt_state.db");
	if (!c->pod[0] && (text = rt_bolt_value(g->root, path, ctr, 2, "pod-id", &len))) {
		if (cgroup_hex_id(text, len) && len < sizeof(c->pod))
			memcpy(c->pod, text, len + 1);
		free(text);
	}
	if (c->pod[0])
		(void) podman_bolt_pod(c, g);
	return true;
}

/*
 * GET of path from podman's API (podman.socket, root's): the answer's JSON body (json_object_put() it), or NULL and
 * why in c->pod_from. The request sent and the answer read within PODMAN_API_MS each, while the crashed process
 * waits.
 */
static struct json_object *podman_api(struct container *c, const char *root, const char *what)
{
	char path[PATH_MAX], req[256], *answer, *body;
	struct json_object *doc = NULL;
	const char *why = NULL;         /* NULL: no answer in time */
	struct sockaddr_un sa;
	ssize_t n = 0;
	_cleanup_close_ int fd = -1;

	if ((size_t)snprintf(path, sizeof(path), "%s" PODMAN_API, root) >= sizeof(path) ||
	    (fd = io_unix_socket(path, SOCK_STREAM | SOCK_NONBLOCK, &sa)) < 0)
		return NULL;
	/* HTTP/1.0: one answer, not chunked, and the end of the stream is its end. */
	n = snprintf(req, sizeof(req), "GET /v4.0.0/libpod/%s/json HTTP/1.0\r\nHost: podman\r\n\r\n", what);
	answer = malloc(API_ANSWER_MAX + 1);
	if (!answer || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		why = answer ? "not listening" : "out of memory";
	else if (io_send_within(fd, &(struct msghdr) { .msg_iov = &(struct iovec) { req, (size_t)n }, .msg_iovlen = 1 },
				PODMAN_API_MS) == 0 &&
		 (n = io_read_within(fd, answer, API_ANSWER_MAX, PODMAN_API_MS)) > 0) {
		answer[n] = '\0';
		body = strstr(answer, "\r\n\r\n");
		why = "not an answer of 200 with JSON";
		if (strncmp(answer, "HTTP/1.", 7) == 0 && strncmp(answer + 8, " 200 ", 5) == 0 && body &&
		    (doc = jdoc_parse(body + 4, (size_t)(answer + n - body - 4)))) {
			free(answer);
			return doc;
		}
	}
	if (why)
		(void) snprintf(c->pod_from, sizeof(c->pod_from), "podman's API: %s", why);
	else
		(void) snprintf(c->pod_from, sizeof(c->pod_from), "podman's API: no answer within %d ms", PODMAN_API_MS);
	free(answer);
	return NULL;
}

/*
 * podman 5's database (SQLite: podmandb.c): the container's name, image and labels, its pod's id, name and labels.
 * Whether it holds the container; where it could not say (locked past its bound, not root's file, not podman's, no
 * such container), why into *why.
 */
static bool podman_sqlite(struct container *c, const struct graph *g, const char **why)
{
	char path[PATH_MAX];
	struct podman_rows rows;

	if ((size_t)snprintf(path, sizeof(path), "%s%s" PODMAN_SQLITE, g->root, g->dir) >= sizeof(path))
		return false;
	memcpy(rows.pod, c->pod, sizeof(rows.pod));
	/* A user's: its owner checked before the sandbox (runtime_user_files()), where owners read as overflow ids. */
	if (podman_db_read(path, g->owner ? IO_ANY_OWNER : 0, c->id, &rows, why) < 0)
		return false;
	rt_take_bytes(rows.name, strlen(rows.name), c->name, sizeof(c->name));
	rt_take_bytes(rows.image, strlen(rows.image), c->image, sizeof(c->image));
	labels_text(rows.labels, c->labels, sizeof(c->labels));
	rt_said(c, "podman", "db.sql");
	if (!rows.pod[0])
		return true;
	memcpy(c->pod, rows.pod, sizeof(c->pod));
	(void) snprintf(c->pod_name, sizeof(c->pod_name), "%s", rows.pod_name);
	labels_text(rows.pod_labels, c->pod_labels, sizeof(c->pod_labels));
	(void) snprintf(c->pod_from, sizeof(c->pod_from), "db.sql");
	return true;
}

/*
 * Where podman's database could not answer (neither BoltDB nor SQLite, or SQLite too slow), its API is asked for the
 * pod, where it listens (and first, where the cgroup did not give the pod's id, the container, whose "Pod" names it).
 * A service that socket activation has still to start, or a slow one, costs that and gives no name (said in
 * c->pod_from, after why the database did not answer).
 */
static void podman_pod_api(struct container *c, const char *root)
{
	char what[128], id[80] = "";
	struct json_object *doc;

	if (!c->pod[0]) {
		(void) snprintf(what, sizeof(what), "containers/%s", c->id);
		/* Whether it is in a pod at all is not known then: nothing said. */
		if (!(doc = podman_api(c, root, what))) {
			c->pod_from[0] = '\0';
			return;
		}
		rt_take(doc, "Pod", NULL, id, sizeof(id));
		json_object_put(doc);
		if (!cgroup_hex_id(id, strlen(id)))
			return;
		memcpy(c->pod, id, sizeof(c->pod));
	}
	(void) snprintf(what, sizeof(what), "pods/%s", c->pod);
	if (!(doc = podman_api(c, root, what)))
		return;
	rt_take(doc, "Name", NULL, c->pod_name, sizeof(c->pod_name));
	rt_take_labels(doc, "Labels", NULL, c->pod_labels, sizeof(c->pod_labels));
	(void) snprintf(c->pod_from, sizeof(c->pod_from), "podman's API");
	json_object_put(doc);
}

/*
 * A podman container: its name, image, labels and pod from podman's own database (podman 4's BoltDB, podman 5's
 * SQLite). Where neither holds it, containers/storage's containers.json names it, and podman's API is asked for its
 * pod (CORESINK_POD_FROM says why the database did not answer, before what the API said); so is it where the
 * database holds the container but not its pod. Whether it is podman's.
 */
bool rt_podman(struct container *c, const struct graph *g)
{
	char both[2 * sizeof(c->pod_from) + 8];
	const char *why = NULL;       /* why db.sql did not answer; NULL where there is none */
	bool db = podman_bolt(c, g) || podman_sqlite(c, g, &why);
	size_t n;

	if (!db && !rt_storage(c, g, "podman"))
		return false;
	/*
	 * Named; or in no pod, as its record in the database says; or, named by containers.json alone, in a pod the
	 * cgroup gave whose own record BoltDB holds.
	 */
	if (c->kube || c->pod_name[0] || (db && !c->pod[0]) || (!db && c->pod[0] && podman_bolt_pod(c, g)))
		return true;
	c->pod_from[0] = '\0';
	/* Root's API only: a user's (its socket under /run/user) is not asked. */
	if (g->owner != 0) {
		if (why)
			(void) snprintf(c->pod_from, sizeof(c->pod_from), "db.sql: %s", why);
		return true;
	}
	podman_pod_api(c, g->root);
	if (why) {
		(void) snprintf(both, sizeof(both), "db.sql: %s; %s", why,
				c->pod_from[0] ? c->pod_from : "podman's API: no pod");
		/* Cut to the field's size: why the database failed comes first. */
		n = strnlen(both, sizeof(c->pod_from) - 1);
		memcpy(c->pod_from, both, n);
		c->pod_from[n] = '\0';
	}
	return true;
}

/*
 * Before a user's podman is read as them: its databases beneath home, where there are any, are regular files of
 * c->owner's (not followed where they are links, never opened: a FIFO costs nothing). 0, or -EPERM. The read
 * itself is the user's, so a file swapped in after this is one they could read anyway.
 */
int runtime_user_files(const struct container *c, const char *home)
{
	static const char *const files[] = { PODMAN_DB, PODMAN_SQLITE };
	char path[PATH_MAX];
	int r = 0;

	for (size_t i = 0; (r == 0 || r == -ENOENT) && i < ELEMENTSOF(files); i++)
		r = (size_t)snprintf(path, sizeof(path), "%s" GRAPH_USER "%s", home, files[i]) >= sizeof(path) ? -EPERM :
		    io_file_of(path, c->owner);
	return r == -ENOENT ? 0 : r;
}

/* What runtime_user_write() says, a line each: "KEY VALUE". */
static const char *const user_keys[] = { "name", "image", "labels", "pod", "pod_name", "pod_labels", "from",
					 "pod_from" };

/*
 * In a sandbox's child, running as c->owner: what that user's own podman (rootless; its graph root beneath home)
 * says of c, written to out for runtime_user_take(). 0, -ENOENT where it does not know c, or -errno.
 */
int runtime_user_write(int out, const struct container *c, const char *home)
{
	struct container d = *c;
	char dir[PATH_MAX], text[8192];
	const char *v[ELEMENTSOF(user_keys)];
	size_t n = 0;

	if ((size_t)snprintf(dir, sizeof(dir), "%s" GRAPH_USER, home) >= sizeof(dir))
		return -ENAMETOOLONG;
	d.state[0] = d.pod_from[0] = '\0';
	if (!rt_podman(&d, &(struct graph) { "", dir, c->owner }))
		return -ENOENT;
	v[0] = d.name, v[1] = d.image, v[2] = d.labels, v[3] = d.pod, v[4] = d.pod_name, v[5] = d.pod_labels;
	v[6] = d.state, v[7] = d.pod_from;
	/* The fields are bounded (about 3 KiB together); past the buffer, nothing more is written, and -E2BIG. */
	for (size_t i = 0; i < ELEMENTSOF(user_keys) && n < sizeof(text); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s %s\n", user_keys[i], v[i]);
	return n < sizeof(text) ? (int)io_write_full(out, text, n) : -E2BIG;
}

/*
 * What a user's runtime said of c (text, len bytes: the sandbox's output of runtime_user_write()) into c, each value
 * checked as every name is, whatever the child (reading the user's files, which may be made to attack it) wrote:
 * a name whole, valid UTF-8 and clean, or none; a pod's id hex; labels only in a label's alphabet. CORESINK_
 * CONTAINER_FROM says it was the user's own runtime ("rootless db.sql").
 */
void runtime_user_take(struct container *c, const char *text, size_t len)
{
	char line[2048], from[64] = "";
	size_t k;

	for (const char *p = text, *end = text + len; p < end; p += k + 1) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char *sp, *val;

		k = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (k >= sizeof(line) || memchr(p, '\0', k))
			continue;
		memcpy(line, p, k), line[k] = '\0';
		if (!(sp = strchr(line, ' ')))
			continue;
		*sp = '\0', val = sp + 1;
		if (!escape_clean(val))
			continue;
		if (strcmp(line, "name") == 0)
			rt_take_bytes(val, strlen(val), c->name, sizeof(c->name));
		else if (strcmp(line, "image") == 0)
			rt_take_bytes(val, strlen(val), c->image, sizeof(c->image));
		else if (strcmp(line, "pod_name") == 0)
			rt_take_bytes(val, strlen(val), c->pod_name, sizeof(c->pod_name));
		else if (strcmp(line, "pod") == 0 && cgroup_hex_id(val, strlen(val)) &&
			 (!c->pod[0] || strcmp(c->pod, val) == 0))
			rt_take_bytes(val, strlen(val), c->pod, sizeof(c->pod));
		else if (strcmp(line, "labels") == 0)
			labels_words(val, c->labels, sizeof(c->labels));
		else if (strcmp(line, "pod_labels") == 0)
			labels_words(val, c->pod_labels, sizeof(c->pod_labels));
		else if (strcmp(line, "from") == 0)
			rt_take_bytes(val, strlen(val), from, sizeof(from));
		else if (strcmp(line, "pod_from") == 0 && val[0])
			(void) snprintf(c->pod_from, sizeof(c->pod_from), "rootless %s", val);
	}
	if (!c->pod[0])
		c->pod_name[0] = c->pod_labels[0] = '\0';
	(void) snprintf(c->runtime, sizeof(c->runtime), "podman");
	(void) snprintf(c->state, sizeof(c->state), "rootless %s", from[0] ? from : "podman");
}
