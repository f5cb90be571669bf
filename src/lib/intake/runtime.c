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
#define STORAGE_LIB "/var/lib/containers/storage/overlay-containers"
#define METADATA "/io.containerd.metadata.v1.bolt/meta.db"   /* beneath its root */
#define PODMAN_DB "/var/lib/containers/storage/libpod/bolt_state.db"
#define PODMAN_SQLITE "/var/lib/containers/storage/db.sql"   /* podman 5's, in the graph root */
#define PODMAN_API "/run/podman/podman.sock"     /* podman.socket's, root's */
#define PODMAN_API_MS 250                        /* a pod's name is worth this much of the release, no more */
#define API_ANSWER_MAX (64u << 10)

/* The whole regular file root+path, at most max bytes, as one checked JSON value: a malloc'd text or NULL. */
static char *read_json(const char *root, const char *path, size_t max, struct json_span *doc)
{
	struct stat st;
	char *text = NULL;
	ssize_t n;
	_cleanup_close_ int fd = io_open_host(root, path);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size <= max &&
	    (text = malloc((size_t)st.st_size + 1))) {
		n = io_read_full(fd, text, (size_t)st.st_size, NULL);
		if (n < 0 || json_whole(text, (size_t)n, doc) < 0) {
			free(text);
			text = NULL;
		}
	}
	return text;
}

/* The string at obj.key, or at obj.key.sub, into out (left as it was when absent or not a name). */
static void take(struct json_span obj, const char *key, const char *sub, char *out, size_t len)
{
	struct json_span v;
	char s[UNIT_NAME_MAX];

	if (json_member(obj, key, &v) < 0 || (sub && json_member(v, sub, &v) < 0))
		return;
	if (json_text(v, s, sizeof(s)) == 0 && s[0])
		(void) snprintf(out, len, "%s", s);
}

static void said(struct container *c, const char *runtime, const char *file)
{
	if (runtime[0])
		(void) snprintf(c->runtime, sizeof(c->runtime), "%s", runtime);
	(void) snprintf(c->state, sizeof(c->state), "%s", file);
}

/*
 * The file DIR/ID/FILE under root, ID a sandbox's id as another container's record names it (checked as the
 * cgroup's ids are: hex, so it names no other path), read as read_json() reads: its text, or NULL.
 */
static char *sandbox_json(const char *root, const char *dir, const char *id, const char *file, struct json_span *doc)
{
	char path[PATH_MAX];

	if (!cgroup_hex_id(id, strlen(id)) ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, id, file) >= sizeof(path))
		return NULL;
	return read_json(root, path, STATE_MAX, doc);
}

/*
 * A pod's labels where cri-dockerd keeps them: on its sandbox container (io.kubernetes.sandbox.id of the crashed
 * one), whose labels are the pod's.
 */
static void docker_pod_labels(struct container *c, const char *root, struct json_span cfg)
{
	struct json_span doc, sandbox, l;
	char id[80] = "", *text;

	take(cfg, "Labels", "io.kubernetes.sandbox.id", id, sizeof(id));
	text = sandbox_json(root, DOCKER_DIR, id, "config.v2.json", &doc);
	if (text && json_member(doc, "Config", &sandbox) == 0 && json_member(sandbox, "Labels", &l) == 0)
		labels_json(l, c->pod_labels, sizeof(c->pod_labels));
	free(text);
}

/* Docker's own record: its name ("/web"), its image as asked for, and cri-dockerd's labels for a pod's. */
static bool docker(struct container *c, const char *root)
{
	char path[PATH_MAX], name[UNIT_NAME_MAX] = "";
	struct json_span doc, cfg, l;
	char *text;

	(void) snprintf(path, sizeof(path), DOCKER_DIR "/%s/config.v2.json", c->id);
	text = read_json(root, path, STATE_MAX, &doc);
	if (!text)
		return false;
	take(doc, "Name", NULL, name, sizeof(name));
	(void) snprintf(c->name, sizeof(c->name), "%s", name + (name[0] == '/'));
	if (json_member(doc, "Config", &cfg) == 0) {
		take(cfg, "Image", NULL, c->image, sizeof(c->image));
		take(cfg, "Labels", "io.kubernetes.container.name", c->name, sizeof(c->name));
		take(cfg, "Labels", "io.kubernetes.pod.name", c->pod_name, sizeof(c->pod_name));
		take(cfg, "Labels", "io.kubernetes.pod.namespace", c->pod_namespace, sizeof(c->pod_namespace));
		docker_pod_labels(c, root, cfg);
		if (json_member(cfg, "Labels", &l) == 0)
			labels_json(l, c->labels, sizeof(c->labels));
	}
	free(text);
	said(c, "docker", "config.v2.json");
	return true;
}

/*
 * A pod's labels where CRI-O keeps them: in its sandbox's bundle (io.kubernetes.cri-o.SandboxID of the crashed
 * container), as JSON in the string of its io.kubernetes.cri-o.Labels annotation.
 */
static void crio_pod_labels(struct container *c, const char *root, struct json_span annotations)
{
	struct json_span doc, a, l;
	char id[80] = "", text[8192], *bundle_text;

	take(annotations, "io.kubernetes.cri-o.SandboxID", NULL, id, sizeof(id));
	bundle_text = sandbox_json(root, STORAGE_RUN, id, "userdata/config.json", &doc);
	if (bundle_text && json_member(doc, "annotations", &a) == 0 &&
	    json_member(a, "io.kubernetes.cri-o.Labels", &l) == 0 && json_text(l, text, sizeof(text)) == 0 &&
	    json_whole(text, strlen(text), &l) == 0)
		labels_json(l, c->pod_labels, sizeof(c->pod_labels));
	free(bundle_text);
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

/* The value (field 2, bytes) of a protobuf google.protobuf.Any, as containerd stores a container's extension. */
static int any_value(const unsigned char *p, size_t n, struct json_span *v)
{
	uint64_t tag, len;
	size_t i = 0;

	while (i < n) {
		/* Both of Any's fields (type_url, value) are length-delimited: wire type 2. */
		if (varint(p, n, &i, &tag) < 0 || (tag & 7) != 2 || varint(p, n, &i, &len) < 0 || len > n - i)
			return -EINVAL;
		if (tag >> 3 == 2) {
			*v = (struct json_span) { (const char *)p + i, (size_t)len };
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
static void containerd_pod_labels(struct container *c, const char *root, const char *db, struct json_span annotations)
{
	char id[80] = "", *any;
	const char *names[] = { "v1", c->ns[0] ? c->ns : "k8s.io", "containers", id, "extensions" };
	struct json_span json, doc, v;
	size_t len;

	take(annotations, "io.kubernetes.cri.sandbox-id", NULL, id, sizeof(id));
	if (!cgroup_hex_id(id, strlen(id)) ||
	    !(any = bolt_value(root, db, names, 5, "io.cri-containerd.sandbox.metadata", &len)))
		return;
	if (any_value((const unsigned char *)any, len, &json) == 0 && json_whole(json.p, json.n, &doc) == 0 &&
	    json_member(doc, "Metadata", &v) == 0 && json_member(v, "Config", &v) == 0 &&
	    json_member(v, "labels", &v) == 0)
		labels_json(v, c->pod_labels, sizeof(c->pod_labels));
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
	struct json_span doc, a;
	char *text = read_json(root, path, STATE_MAX, &doc);

	if (!text)
		return false;
	if (json_member(doc, "annotations", &a) == 0) {
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
	free(text);
	if (strcmp(runtime, "containerd") == 0)
		containerd_record(c, root, db);
	said(c, runtime, "config.json");
	return true;
}

/* containers/storage's record of the container (podman, CRI-O): its name, and the image and pod its metadata name. */
static bool storage(struct container *c, const char *root, const char *runtime)
{
	struct json_span doc, e, v, meta;
	char id[80], metadata[8192];
	size_t pos = 0;
	char *text = read_json(root, STORAGE_LIB "/containers.json", STORAGE_MAX, &doc);
	bool found = false;

	if (!text)
		return false;
	while (!found && json_element(doc, &pos, &e) > 0)
		found = json_member(e, "id", &v) == 0 && json_text(v, id, sizeof(id)) == 0 && strcmp(id, c->id) == 0;
	if (found) {
		size_t at = 0;

		if (json_member(e, "names", &v) == 0 && json_element(v, &at, &v) > 0)
			(void) json_text(v, c->name, sizeof(c->name));
		/* Its metadata is JSON in a string. */
		if (json_member(e, "metadata", &v) == 0 && json_text(v, metadata, sizeof(metadata)) == 0 &&
		    json_whole(metadata, strlen(metadata), &meta) == 0) {
			take(meta, "image-name", NULL, c->image, sizeof(c->image));
			take(meta, "pod-name", NULL, c->pod_name, sizeof(c->pod_name));
		}
		said(c, runtime, "containers.json");
	}
	free(text);
	if (found && c->pod_name[0])
		(void) snprintf(c->pod_from, sizeof(c->pod_from), "containers.json");
	return found;
}

/*
 * A podman pod's id, name and labels from podman 4's database (BoltDB): the pod's id as the container's record
 * holds it (ctr/ID, pod-id) where the cgroup did not give it (a pod without an infra container has no cgroup of its
 * own: its containers lie beside any other), then the pod's record (pod/ID, config). Whether it held the pod.
 */
static bool podman_pod_db(struct container *c, const char *root)
{
	const char *ctr[] = { "ctr", c->id }, *pod[] = { "pod", c->pod };
	struct json_span doc, v;
	size_t len;
	char *text;
	bool found;

	/* The container's own labels, in its config (ctr/ID, config). */
	if ((text = bolt_value(root, PODMAN_DB, ctr, 2, "config", &len))) {
		if (json_whole(text, len, &doc) == 0 && json_member(doc, "labels", &v) == 0)
			labels_json(v, c->labels, sizeof(c->labels));
		free(text);
	}
	if (!c->pod[0] && (text = bolt_value(root, PODMAN_DB, ctr, 2, "pod-id", &len))) {
		if (cgroup_hex_id(text, len) && len < sizeof(c->pod))
			memcpy(c->pod, text, len + 1);
		free(text);
	}
	if (!c->pod[0])
		return false;
	text = bolt_value(root, PODMAN_DB, pod, 2, "config", &len);
	found = text && json_whole(text, len, &doc) == 0;
	if (found) {
		take(doc, "name", NULL, c->pod_name, sizeof(c->pod_name));
		if (json_member(doc, "labels", &v) == 0)
			labels_json(v, c->pod_labels, sizeof(c->pod_labels));
	}
	free(text);
	if (found)
		(void) snprintf(c->pod_from, sizeof(c->pod_from), "bolt_state.db");
	return found;
}

/*
 * GET of path from podman's API (podman.socket, root's): the answer's JSON body in *doc, the malloc'd answer to
 * free, or NULL and why in c->pod_from. The request sent and the answer read within PODMAN_API_MS each, while the
 * crashed process waits.
 */
static char *podman_api(struct container *c, const char *root, const char *what, struct json_span *doc)
{
	char path[PATH_MAX], req[256], *answer, *body;
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
		    json_whole(body + 4, (size_t)(answer + n - body - 4), doc) == 0)
			return answer;
	}
	if (why)
		(void) snprintf(c->pod_from, sizeof(c->pod_from), "podman's API: %s", why);
	else
		(void) snprintf(c->pod_from, sizeof(c->pod_from), "podman's API: no answer within %d ms", PODMAN_API_MS);
	free(answer);
	return NULL;
}

/*
 * A podman pod's id, name and labels from podman 5's database (SQLite: podmandb.c). Whether it answered: a pod named,
 * or the container in none. Where it could not (locked past its bound, not root's file, not podman's), why into *why.
 */
static bool podman_pod_sqlite(struct container *c, const char *root, const char **why)
{
	char path[PATH_MAX];
	struct podman_rows rows;
	struct json_span doc;
	int r;

	if ((size_t)snprintf(path, sizeof(path), "%s" PODMAN_SQLITE, root) >= sizeof(path))
		return false;
	memcpy(rows.pod, c->pod, sizeof(rows.pod));
	r = podman_db_read(path, c->id, &rows, why);
	if (r < 0)
		return false;
	if (json_whole(rows.labels, strlen(rows.labels), &doc) == 0)
		labels_json(doc, c->labels, sizeof(c->labels));
	if (!rows.pod[0]) {
		c->pod_from[0] = '\0';
		return true;
	}
	memcpy(c->pod, rows.pod, sizeof(c->pod));
	(void) snprintf(c->pod_name, sizeof(c->pod_name), "%s", rows.pod_name);
	if (json_whole(rows.pod_labels, strlen(rows.pod_labels), &doc) == 0)
		labels_json(doc, c->pod_labels, sizeof(c->pod_labels));
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
	char what[128], id[80] = "", *answer;
	struct json_span doc, v;

	if (!c->pod[0]) {
		(void) snprintf(what, sizeof(what), "containers/%s", c->id);
		/* Whether it is in a pod at all is not known then: nothing said. */
		if (!(answer = podman_api(c, root, what, &doc))) {
			c->pod_from[0] = '\0';
			return;
		}
		take(doc, "Pod", NULL, id, sizeof(id));
		free(answer);
		if (!cgroup_hex_id(id, strlen(id)))
			return;
		memcpy(c->pod, id, sizeof(c->pod));
	}
	(void) snprintf(what, sizeof(what), "pods/%s", c->pod);
	if (!(answer = podman_api(c, root, what, &doc)))
		return;
	take(doc, "Name", NULL, c->pod_name, sizeof(c->pod_name));
	if (json_member(doc, "Labels", &v) == 0)
		labels_json(v, c->pod_labels, sizeof(c->pod_labels));
	(void) snprintf(c->pod_from, sizeof(c->pod_from), "podman's API");
	free(answer);
}

/*
 * A podman container's pod: from its database (podman 4's BoltDB, podman 5's SQLite), else from its API; where the
 * database could not answer, CORESINK_POD_FROM says why before what the API said.
 */
static void podman_pod(struct container *c, const char *root)
{
	char both[2 * sizeof(c->pod_from) + 8];
	const char *why = NULL;       /* why db.sql did not answer; NULL where there is none */
	size_t n;

	if (podman_pod_db(c, root) || podman_pod_sqlite(c, root, &why))
		return;
	c->pod_from[0] = '\0';
	podman_pod_api(c, root);
	if (why) {
		(void) snprintf(both, sizeof(both), "db.sql: %s; %s", why,
				c->pod_from[0] ? c->pod_from : "podman's API: no pod");
		/* Cut to the field's size: why the database failed comes first. */
		n = strnlen(both, sizeof(c->pod_from) - 1);
		memcpy(c->pod_from, both, n);
		c->pod_from[n] = '\0';
	}
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
			(void) storage(c, root, "cri-o");
			said(c, "cri-o", "config.json");
		}
	}
	if (!found && (any || strcmp(rt, "podman") == 0)) {
		found = storage(c, root, "podman");
		if (found && !c->kube)
			podman_pod(c, root);
	}
	if (!found && (any || strcmp(rt, "docker") == 0))
		found = docker(c, root);
	if (found)
		return;
	(void) snprintf(c->state, sizeof(c->state), "none: no file of its runtime names it");
	/* A path /NS/ID that no containerd task has is no container at all. */
	if (c->ns[0])
		c->id[0] = c->ns[0] = c->state[0] = '\0';
}
