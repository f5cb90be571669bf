/*
 * runtime.c: the names a container's runtime gave it, read before the release (a container's files go with it):
 * Docker's config.v2.json, an OCI bundle's config.json (containerd's CRI plugin and CRI-O write the pod's name,
 * namespace and UID into its annotations, as the kubelet gave them), and containers/storage's containers.json
 * (podman's and CRI-O's names and images). Only the host's files, at the runtimes' fixed places, found by the id
 * the cgroup gave (checked hex, so it cannot name another path): nothing the crashing process can write, neither
 * its own files nor its environment. A runtime installed elsewhere (another graph root) says nothing; c->state
 * says which file spoke, or that none did. A pod's labels (and a podman pod's name) are where the runtime keeps
 * them: the sandbox container's labels (cri-dockerd), the sandbox's bundle (CRI-O), the databases of containerd
 * and podman 4 (BoltDB: base/boltread.c), podman 5's SQLite (podmandb.c), podman's API where neither answers.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "base.h"
#include "containerd.h"
#include "labels.h"
#include "podmandb.h"
#include "runtime.h"

#define STATE_MAX (1u << 20)            /* a bundle's config.json, Docker's config.v2.json: tens of KiB */
#define STORAGE_MAX (16u << 20)         /* containers.json: about 600 bytes per container of the host */

#define DOCKER_DIR "/var/lib/docker/containers"
#define TASKS "/io.containerd.runtime.v2.task"            /* beneath a containerd's state */
#define STORAGE_RUN "/run/containers/storage/overlay-containers"
#define GRAPH_ROOT "/var/lib/containers/storage"        /* containers/storage's, root's: podman's and CRI-O's */
#define GRAPH_USER "/.local/share/containers/storage"   /* beneath a user's home: rootless podman's */
#define METADATA "/io.containerd.metadata.v1.bolt/meta.db"   /* beneath its root */
#define STORAGE_LIST "/overlay-containers/containers.json"   /* beneath a graph root */
#define PODMAN_DB "/libpod/bolt_state.db"                    /* podman 4's */
#define PODMAN_SQLITE "/db.sql"                              /* podman 5's */
#define PODMAN_API "/run/podman/podman.sock"     /* podman.socket's, root's */
#define PODMAN_API_MS 250                        /* a pod's name is worth this much of the release, no more */
#define API_ANSWER_MAX (64u << 10)

/*
 * Where a containers/storage's files are: root (a test's directory, "" on the host), the graph root beneath it, and
 * whose they are: root's, or a user's rootless podman's (read as that user: runtime_user_write()).
 */
struct graph {
	const char *root;
	const char *dir;
	uid_t owner;
};

/* The file of g's (its path beneath g->root) into buf: buf, or "" where it does not fit (then no file opens). */
static const char *in_graph(const struct graph *g, const char *file, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s%s", g->dir, file) >= len)
		buf[0] = '\0';
	return buf;
}

/* The whole regular file root+path, at most max bytes, as one checked JSON document (json_object_put() it), or NULL. */
static struct json_object *read_json(const char *root, const char *path, size_t max)
{
	struct stat st;
	struct json_object *doc = NULL;
	char *text;
	ssize_t n;
	_cleanup_close_ int fd = io_open_host(root, path);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size <= max &&
	    (text = malloc((size_t)st.st_size))) {
		n = io_read_full(fd, text, (size_t)st.st_size, NULL);
		if (n > 0)
			doc = jdoc_parse(text, (size_t)n);
		free(text);
	}
	return doc;
}

/* The string at obj.key, or at obj.key.sub, into out (left as it was when absent or not a name). */
static void take(struct json_object *obj, const char *key, const char *sub, char *out, size_t len)
{
	struct json_object *v;
	char s[UNIT_NAME_MAX];

	if (jdoc_member(obj, key, &v) < 0 || (sub && jdoc_member(v, sub, &v) < 0))
		return;
	if (jdoc_text(v, s, sizeof(s)) == 0 && s[0])
		(void) snprintf(out, len, "%s", s);
}

/* The labels at obj.key.sub (sub may be NULL) into out. */
static void take_labels(struct json_object *obj, const char *key, const char *sub, char *out, size_t len)
{
	struct json_object *v;

	if (jdoc_member(obj, key, &v) == 0 && (!sub || jdoc_member(v, sub, &v) == 0))
		labels_json(v, out, len);
}

static void said(struct container *c, const char *runtime, const char *file)
{
	if (runtime[0])
		(void) snprintf(c->runtime, sizeof(c->runtime), "%s", runtime);
	(void) snprintf(c->state, sizeof(c->state), "%s", file);
}

/*
 * The file DIR/ID/FILE under root, ID a sandbox's id as another container's record names it (checked as the
 * cgroup's ids are: hex, so it names no other path), read as read_json() reads: its document, or NULL.
 */
static struct json_object *sandbox_json(const char *root, const char *dir, const char *id, const char *file)
{
	char path[PATH_MAX];

	if (!cgroup_hex_id(id, strlen(id)) ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, id, file) >= sizeof(path))
		return NULL;
	return read_json(root, path, STATE_MAX);
}

/*
 * A pod's labels where cri-dockerd keeps them: on its sandbox container (io.kubernetes.sandbox.id of the crashed
 * one), whose labels are the pod's.
 */
static void docker_pod_labels(struct container *c, const char *root, struct json_object *cfg)
{
	struct json_object *doc;
	char id[80] = "";

	take(cfg, "Labels", "io.kubernetes.sandbox.id", id, sizeof(id));
	doc = sandbox_json(root, DOCKER_DIR, id, "config.v2.json");
	take_labels(doc, "Config", "Labels", c->pod_labels, sizeof(c->pod_labels));
	json_object_put(doc);
}

/* Docker's own record: its name ("/web"), its image as asked for, and cri-dockerd's labels for a pod's. */
static bool docker(struct container *c, const char *root)
{
	char path[PATH_MAX], name[UNIT_NAME_MAX] = "";
	struct json_object *doc, *cfg;

	(void) snprintf(path, sizeof(path), DOCKER_DIR "/%s/config.v2.json", c->id);
	doc = read_json(root, path, STATE_MAX);
	if (!doc)
		return false;
	take(doc, "Name", NULL, name, sizeof(name));
	(void) snprintf(c->name, sizeof(c->name), "%s", name + (name[0] == '/'));
	if (jdoc_member(doc, "Config", &cfg) == 0) {
		take(cfg, "Image", NULL, c->image, sizeof(c->image));
		take(cfg, "Labels", "io.kubernetes.container.name", c->name, sizeof(c->name));
		take(cfg, "Labels", "io.kubernetes.pod.name", c->pod_name, sizeof(c->pod_name));
		take(cfg, "Labels", "io.kubernetes.pod.namespace", c->pod_namespace, sizeof(c->pod_namespace));
		docker_pod_labels(c, root, cfg);
		take_labels(cfg, "Labels", NULL, c->labels, sizeof(c->labels));
	}
	json_object_put(doc);
	said(c, "docker", "config.v2.json");
	return true;
}

/*
 * A pod's labels where CRI-O keeps them: in its sandbox's bundle (io.kubernetes.cri-o.SandboxID of the crashed
 * container), as JSON in the string of its io.kubernetes.cri-o.Labels annotation.
 */
static void crio_pod_labels(struct container *c, const char *root, struct json_object *annotations)
{
	struct json_object *doc, *a, *l;
	char id[80] = "", text[8192];

	take(annotations, "io.kubernetes.cri-o.SandboxID", NULL, id, sizeof(id));
	doc = sandbox_json(root, STORAGE_RUN, id, "userdata/config.json");
	if (jdoc_member(doc, "annotations", &a) == 0 && jdoc_member(a, "io.kubernetes.cri-o.Labels", &l) == 0 &&
	    jdoc_text(l, text, sizeof(text)) == 0 && (l = jdoc_parse(text, strlen(text)))) {
		labels_json(l, c->pod_labels, sizeof(c->pod_labels));
		json_object_put(l);
	}
	json_object_put(doc);
}

/* The value of key in the bucket at names of the BoltDB file root+path: a malloc'd text, or NULL. */
static char *bolt_value(const char *root, const char *path, const char *const *names, size_t depth, const char *key,
			size_t *len)
{
	char *value = NULL;
	_cleanup_close_ int fd = io_open_host(root, path);

	if (fd < 0)
		return NULL;
	if (bolt_get(fd, (struct bolt_path) { names, depth }, key, &value, len) < 0)
		value = NULL;
	return value;
}

/* A protobuf varint at p[*i], before n: 0 and *i past it, or -EINVAL where it runs past n or 64 bits. */
static int varint(const unsigned char *p, size_t n, size_t *i, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; *i < n && shift < 64; shift += 7) {
		*v |= (uint64_t)(p[*i] & 0x7f) << shift;
		if (!(p[(*i)++] & 0x80))
			return 0;
	}
	return -EINVAL;
}

/* The value (field 2, bytes: *v, *vlen) of a protobuf google.protobuf.Any, as containerd stores an extension. */
static int any_value(const unsigned char *p, size_t n, const char **v, size_t *vlen)
{
	uint64_t tag, len;
	size_t i = 0;

	while (i < n) {
		/* Both of Any's fields (type_url, value) are length-delimited: wire type 2. */
		if (varint(p, n, &i, &tag) < 0 || (tag & 7) != 2 || varint(p, n, &i, &len) < 0 || len > n - i)
			return -EINVAL;
		if (tag >> 3 == 2) {
			*v = (const char *)p + i, *vlen = (size_t)len;
			return 0;
		}
		i += (size_t)len;
	}
	return -ENOENT;
}

/*
 * A pod's labels where containerd's CRI plugin keeps them: in its database, the sandbox container's extension
 * io.cri-containerd.sandbox.metadata (JSON in a protobuf Any: Metadata.Config.labels, the pod's own, as the kubelet
 * gave them; the container's labels bucket would mix in the pause image's). The sandbox is the one the crashed
 * container's bundle names (io.kubernetes.cri.sandbox-id).
 */
static void containerd_pod_labels(struct container *c, const char *root, const char *db,
				  struct json_object *annotations)
{
	char id[80] = "", *any;
	const char *names[] = { "v1", c->ns[0] ? c->ns : "k8s.io", "containers", id, "extensions" }, *json;
	struct json_object *doc = NULL, *v;
	size_t len, n;

	take(annotations, "io.kubernetes.cri.sandbox-id", NULL, id, sizeof(id));
	if (!cgroup_hex_id(id, strlen(id)) ||
	    !(any = bolt_value(root, db, names, 5, "io.cri-containerd.sandbox.metadata", &len)))
		return;
	if (any_value((const unsigned char *)any, len, &json, &n) == 0 && (doc = jdoc_parse(json, n)) &&
	    jdoc_member(doc, "Metadata", &v) == 0)
		take_labels(v, "Config", "labels", c->pod_labels, sizeof(c->pod_labels));
	json_object_put(doc);
	free(any);
}

/* The labels bucket of a containerd container's record (names: its path) into c->labels. */
static void containerd_labels(struct container *c, const char *root, const char *db, const char *const *names)
{
	struct label_words w = { c->labels, sizeof(c->labels), 0, false };
	_cleanup_close_ int fd = io_open_host(root, db);

	c->labels[0] = '\0';
	if (fd >= 0 && bolt_each(fd, (struct bolt_path) { names, 5 }, labels_word, &w) < 0)
		c->labels[0] = '\0';
}

/* A name from a database's value (bytes, not JSON): taken only whole, valid UTF-8, free of control characters. */
static void take_bytes(const char *v, size_t len, char *out, size_t size)
{
	if (v && len > 0 && strlen(v) == len && len < size && escape_clean(v))
		memcpy(out, v, len + 1);
}

/*
 * A plain containerd container's image, and the name nerdctl gave it, from containerd's database (v1/NS/containers/ID:
 * its image, its label nerdctl/name): the bundle has neither. A CRI container's bundle has said both already. Its
 * labels, those someone gave it (nerdctl --label, ctr --label), from the same record.
 */
static void containerd_record(struct container *c, const char *root, const char *db)
{
	const char *names[] = { "v1", c->ns[0] ? c->ns : "k8s.io", "containers", c->id, "labels" };
	size_t len = 0;
	char *v;

	if (!c->image[0]) {
		v = bolt_value(root, db, names, 4, "image", &len);
		take_bytes(v, len, c->image, sizeof(c->image));
		free(v);
	}
	if (!c->name[0]) {
		v = bolt_value(root, db, names, 5, "nerdctl/name", &len);
		take_bytes(v, len, c->name, sizeof(c->name));
		free(v);
	}
	containerd_labels(c, root, db, names);
}

/*
 * An OCI bundle's annotations, as containerd's CRI plugin (io.kubernetes.cri.*) or CRI-O (io.kubernetes.*) wrote;
 * for containerd's, its metadata database db (a path beneath root) says the rest.
 */
static bool bundle(struct container *c, const char *root, const char *path, const char *runtime, const char *db)
{
	struct json_object *a, *doc = read_json(root, path, STATE_MAX);

	if (!doc)
		return false;
	if (jdoc_member(doc, "annotations", &a) == 0) {
		take(a, "io.kubernetes.cri.container-name", NULL, c->name, sizeof(c->name));
		take(a, "io.kubernetes.cri.image-name", NULL, c->image, sizeof(c->image));
		take(a, "io.kubernetes.cri.sandbox-name", NULL, c->pod_name, sizeof(c->pod_name));
		take(a, "io.kubernetes.cri.sandbox-namespace", NULL, c->pod_namespace, sizeof(c->pod_namespace));
		take(a, "io.kubernetes.container.name", NULL, c->name, sizeof(c->name));
		take(a, "io.kubernetes.cri-o.ImageName", NULL, c->image, sizeof(c->image));
		take(a, "io.kubernetes.pod.name", NULL, c->pod_name, sizeof(c->pod_name));
		take(a, "io.kubernetes.pod.namespace", NULL, c->pod_namespace, sizeof(c->pod_namespace));
		/* A Kubernetes pod's UID, where the cgroup did not give it (systemd's driver without kubepods). */
		if (!c->kube) {
			take(a, "io.kubernetes.cri.sandbox-uid", NULL, c->pod, sizeof(c->pod));
			c->kube = c->pod[0] != '\0';
		}
		if (strcmp(runtime, "cri-o") == 0)
			crio_pod_labels(c, root, a);
		else
			containerd_pod_labels(c, root, db, a);
	}
	json_object_put(doc);
	if (strcmp(runtime, "containerd") == 0)
		containerd_record(c, root, db);
	said(c, runtime, "config.json");
	return true;
}

/* containers/storage's record of the container (podman, CRI-O): its name, and the image and pod its metadata name. */
static bool storage(struct container *c, const struct graph *g, const char *runtime)
{
	char path[PATH_MAX], id[80], metadata[8192];
	struct json_object *e = NULL, *v, *meta;
	struct json_object *doc = read_json(g->root, in_graph(g, STORAGE_LIST, path, sizeof(path)), STORAGE_MAX);
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
			take(meta, "image-name", NULL, c->image, sizeof(c->image));
			take(meta, "pod-name", NULL, c->pod_name, sizeof(c->pod_name));
			json_object_put(meta);
		}
		said(c, runtime, "containers.json");
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
	char *text = bolt_value(g->root, in_graph(g, PODMAN_DB, path, sizeof(path)), pod, 2, "config", &len);

	if (text && (doc = jdoc_parse(text, len))) {
		take(doc, "name", NULL, c->pod_name, sizeof(c->pod_name));
		take_labels(doc, "labels", NULL, c->pod_labels, sizeof(c->pod_labels));
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
	if (!(text = bolt_value(g->root, path, ctr, 2, "config", &len)))
		return false;
	doc = jdoc_parse(text, len);
	free(text);
	if (!doc)
		return false;
	take(doc, "name", NULL, c->name, sizeof(c->name));
	take(doc, "rootfsImageName", NULL, c->image, sizeof(c->image));
	take_labels(doc, "labels", NULL, c->labels, sizeof(c->labels));
	json_object_put(doc);
	said(c, "podman", "bolt_state.db");
	if (!c->pod[0] && (text = bolt_value(g->root, path, ctr, 2, "pod-id", &len))) {
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
	struct json_object *doc;

	if ((size_t)snprintf(path, sizeof(path), "%s%s" PODMAN_SQLITE, g->root, g->dir) >= sizeof(path))
		return false;
	memcpy(rows.pod, c->pod, sizeof(rows.pod));
	if (podman_db_read(path, g->owner, c->id, &rows, why) < 0)
		return false;
	take_bytes(rows.name, strlen(rows.name), c->name, sizeof(c->name));
	take_bytes(rows.image, strlen(rows.image), c->image, sizeof(c->image));
	doc = jdoc_parse(rows.labels, strlen(rows.labels));
	labels_json(doc, c->labels, sizeof(c->labels));
	json_object_put(doc);
	said(c, "podman", "db.sql");
	if (!rows.pod[0])
		return true;
	memcpy(c->pod, rows.pod, sizeof(c->pod));
	(void) snprintf(c->pod_name, sizeof(c->pod_name), "%s", rows.pod_name);
	doc = jdoc_parse(rows.pod_labels, strlen(rows.pod_labels));
	labels_json(doc, c->pod_labels, sizeof(c->pod_labels));
	json_object_put(doc);
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
		take(doc, "Pod", NULL, id, sizeof(id));
		json_object_put(doc);
		if (!cgroup_hex_id(id, strlen(id)))
			return;
		memcpy(c->pod, id, sizeof(c->pod));
	}
	(void) snprintf(what, sizeof(what), "pods/%s", c->pod);
	if (!(doc = podman_api(c, root, what)))
		return;
	take(doc, "Name", NULL, c->pod_name, sizeof(c->pod_name));
	take_labels(doc, "Labels", NULL, c->pod_labels, sizeof(c->pod_labels));
	(void) snprintf(c->pod_from, sizeof(c->pod_from), "podman's API");
	json_object_put(doc);
}

/*
 * A podman container: its name, image, labels and pod from podman's own database (podman 4's BoltDB, podman 5's
 * SQLite). Where neither holds it, containers/storage's containers.json names it, and podman's API is asked for its
 * pod (CORESINK_POD_FROM says why the database did not answer, before what the API said); so is it where the
 * database holds the container but not its pod. Whether it is podman's.
 */
static bool podman(struct container *c, const struct graph *g)
{
	char both[2 * sizeof(c->pod_from) + 8];
	const char *why = NULL;       /* why db.sql did not answer; NULL where there is none */
	size_t n;

	if (!podman_bolt(c, g) && !podman_sqlite(c, g, &why) && !storage(c, g, "podman"))
		return false;
	/* Named; or in no pod, as its record in the database says; or a pod's record where only the cgroup named it. */
	if (c->kube || c->pod_name[0] || (!c->pod[0] && strcmp(c->state, "containers.json") != 0) ||
	    (c->pod[0] && strcmp(c->state, "containers.json") == 0 && podman_bolt_pod(c, g)))
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

/* The task's bundle of a containerd with this state and root directory, and its database: whether it named c. */
static bool containerd_bundle(struct container *c, const char *root, const char *state, const char *dir)
{
	char path[PATH_MAX], db[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s" TASKS "/%s/%s/config.json", state, c->ns[0] ? c->ns : "k8s.io",
			     c->id) >= sizeof(path) || (size_t)snprintf(db, sizeof(db), "%s" METADATA, dir) >= sizeof(db))
		return false;
	return bundle(c, root, path, "containerd", db);
}

/* Reads into c what the runtime its cgroup names (or, where the cgroup does not say, the one that has it) wrote. */
void runtime_read(struct container *c, const char *root)
{
	const char *rt = c->runtime;
	char path[PATH_MAX];
	bool any = !rt[0] && !c->ns[0], found = false;

	if (!c->id[0])
		return;
	/* A user's: named by their own runtime, read as them (runtime_user_write()), never by root's files. */
	if (c->owner != 0 && c->ns[0]) {
		c->id[0] = c->ns[0] = '\0';
		return;
	}
	if (c->owner != 0) {
		(void) snprintf(c->state, sizeof(c->state), "none: uid %u's own (rootless)", (unsigned)c->owner);
		return;
	}
	/* /NAMESPACE/ID is containerd's layout alone. */
	if (c->ns[0])
		rt = "containerd";
	if (!found && (any || strcmp(rt, "containerd") == 0)) {
		found = containerd_bundle(c, root, "/run/containerd", "/var/lib/containerd");
		/* Not a system containerd's: one with another state and root (k3s, rke2, a config's own). */
		if (!found) {
			struct containerd_dirs other[CONTAINERD_MAX];
			size_t n = containerd_find(root, other, ELEMENTSOF(other));

			for (size_t i = 0; !found && i < n; i++)
				found = containerd_bundle(c, root, other[i].state, other[i].root);
		}
	}
	if (!found && (any || strcmp(rt, "cri-o") == 0)) {
		(void) snprintf(path, sizeof(path), STORAGE_RUN "/%s/userdata/config.json", c->id);
		found = bundle(c, root, path, "cri-o", NULL);
		/* Its storage record adds what the annotations lack; the bundle is what says it is CRI-O's. */
		if (found) {
			(void) storage(c, &(struct graph) { root, GRAPH_ROOT, 0 }, "cri-o");
			said(c, "cri-o", "config.json");
		}
	}
	if (!found && (any || strcmp(rt, "podman") == 0))
		found = podman(c, &(struct graph) { root, GRAPH_ROOT, 0 });
	if (!found && (any || strcmp(rt, "docker") == 0))
		found = docker(c, root);
	if (found)
		return;
	(void) snprintf(c->state, sizeof(c->state), "none: no file of its runtime names it");
	/* A path /NS/ID that no containerd task has is no container at all. */
	if (c->ns[0])
		c->id[0] = c->ns[0] = c->state[0] = '\0';
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
	if (!podman(&d, &(struct graph) { "", dir, c->owner }))
		return -ENOENT;
	v[0] = d.name, v[1] = d.image, v[2] = d.labels, v[3] = d.pod, v[4] = d.pod_name, v[5] = d.pod_labels;
	v[6] = d.state, v[7] = d.pod_from;
	for (size_t i = 0; i < ELEMENTSOF(user_keys); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s %s\n", user_keys[i], v[i]);
	return n < sizeof(text) ? (int)io_write_full(out, text, n) : -E2BIG;
}

/* The words "KEY=VALUE ..." of w, those that are labels (labels_add), into out. */
static void user_labels(char *w, char *out, size_t len)
{
	size_t used = 0;
	char *save = NULL, *eq;

	out[0] = '\0';
	for (char *t = strtok_r(w, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if ((eq = strchr(t, '=')) && (*eq = '\0', !labels_add(out, len, &used, t, eq + 1)))
			break;
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
			take_bytes(val, strlen(val), c->name, sizeof(c->name));
		else if (strcmp(line, "image") == 0)
			take_bytes(val, strlen(val), c->image, sizeof(c->image));
		else if (strcmp(line, "pod_name") == 0)
			take_bytes(val, strlen(val), c->pod_name, sizeof(c->pod_name));
		else if (strcmp(line, "pod") == 0 && cgroup_hex_id(val, strlen(val)) &&
			 (!c->pod[0] || strcmp(c->pod, val) == 0))
			take_bytes(val, strlen(val), c->pod, sizeof(c->pod));
		else if (strcmp(line, "labels") == 0)
			user_labels(val, c->labels, sizeof(c->labels));
		else if (strcmp(line, "pod_labels") == 0)
			user_labels(val, c->pod_labels, sizeof(c->pod_labels));
		else if (strcmp(line, "from") == 0)
			take_bytes(val, strlen(val), from, sizeof(from));
		else if (strcmp(line, "pod_from") == 0 && val[0])
			(void) snprintf(c->pod_from, sizeof(c->pod_from), "rootless %s", val);
	}
	if (!c->pod[0])
		c->pod_name[0] = c->pod_labels[0] = '\0';
	(void) snprintf(c->runtime, sizeof(c->runtime), "podman");
	(void) snprintf(c->state, sizeof(c->state), "rootless %s", from[0] ? from : "podman");
}
