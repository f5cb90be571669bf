/*
 * runtime.c: the names a container's runtime gave it, read before the release (a container's files go with it):
 * Docker's config.v2.json, an OCI bundle's config.json (containerd's CRI plugin and CRI-O write the pod's name,
 * namespace and UID into its annotations, as the kubelet gave them), and podman's records (podman.c). Only the
 * host's files, at the runtimes' fixed places, found by the id the cgroup gave (checked hex, so it cannot name
 * another path): nothing the crashing process can write, neither its own files nor its environment. A runtime
 * installed elsewhere (another graph root) says nothing; c->state says which file spoke, or that none did. A pod's
 * labels are where the runtime keeps them: the sandbox container's labels (cri-dockerd), the sandbox's bundle
 * (CRI-O), containerd's database (BoltDB: base/boltread.c). The readers podman.c shares are here
 * (runtime-internal.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "containerd.h"
#include "labels.h"
#include "runtime-internal.h"

#define DOCKER_DIR "/var/lib/docker/containers"
#define TASKS "/io.containerd.runtime.v2.task"            /* beneath a containerd's state */
#define STORAGE_RUN "/run/containers/storage/overlay-containers"
#define METADATA "/io.containerd.metadata.v1.bolt/meta.db"   /* beneath its root */

/* The whole regular file root+path, at most max bytes, as one checked JSON document (json_object_put() it), or NULL. */
struct json_object *rt_json(const char *root, const char *path, size_t max)
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
void rt_take(struct json_object *obj, const char *key, const char *sub, char *out, size_t len)
{
	struct json_object *v;
	char s[UNIT_NAME_MAX];

	if (jdoc_member(obj, key, &v) < 0 || (sub && jdoc_member(v, sub, &v) < 0))
		return;
	if (jdoc_text(v, s, sizeof(s)) == 0 && s[0])
		(void) snprintf(out, len, "%s", s);
}

/* The labels at obj.key.sub (sub may be NULL) into out. */
void rt_take_labels(struct json_object *obj, const char *key, const char *sub, char *out, size_t len)
{
	struct json_object *v;

	if (jdoc_member(obj, key, &v) == 0 && (!sub || jdoc_member(v, sub, &v) == 0))
		labels_json(v, out, len);
}

void rt_said(struct container *c, const char *runtime, const char *file)
{
	if (runtime[0])
		(void) snprintf(c->runtime, sizeof(c->runtime), "%s", runtime);
	(void) snprintf(c->state, sizeof(c->state), "%s", file);
}

/*
 * The file DIR/ID/FILE under root, ID a sandbox's id as another container's record names it (checked as the
 * cgroup's ids are: hex, so it names no other path), read as rt_json() reads: its document, or NULL.
 */
static struct json_object *sandbox_json(const char *root, const char *dir, const char *id, const char *file)
{
	char path[PATH_MAX];

	if (!cgroup_hex_id(id, strlen(id)) ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, id, file) >= sizeof(path))
		return NULL;
	return rt_json(root, path, STATE_MAX);
}

/*
 * A pod's labels where cri-dockerd keeps them: on its sandbox container (io.kubernetes.sandbox.id of the crashed
 * one), whose labels are the pod's.
 */
static void docker_pod_labels(struct container *c, const char *root, struct json_object *cfg)
{
	struct json_object *doc;
	char id[80] = "";

	rt_take(cfg, "Labels", "io.kubernetes.sandbox.id", id, sizeof(id));
	doc = sandbox_json(root, DOCKER_DIR, id, "config.v2.json");
	rt_take_labels(doc, "Config", "Labels", c->pod_labels, sizeof(c->pod_labels));
	json_object_put(doc);
}

/* Docker's own record: its name ("/web"), its image as asked for, and cri-dockerd's labels for a pod's. */
static bool docker(struct container *c, const char *root)
{
	char path[PATH_MAX], name[UNIT_NAME_MAX] = "";
	struct json_object *doc, *cfg;

	(void) snprintf(path, sizeof(path), DOCKER_DIR "/%s/config.v2.json", c->id);
	doc = rt_json(root, path, STATE_MAX);
	if (!doc)
		return false;
	rt_take(doc, "Name", NULL, name, sizeof(name));
	(void) snprintf(c->name, sizeof(c->name), "%s", name + (name[0] == '/'));
	if (jdoc_member(doc, "Config", &cfg) == 0) {
		rt_take(cfg, "Image", NULL, c->image, sizeof(c->image));
		rt_take(cfg, "Labels", "io.kubernetes.container.name", c->name, sizeof(c->name));
		rt_take(cfg, "Labels", "io.kubernetes.pod.name", c->pod_name, sizeof(c->pod_name));
		rt_take(cfg, "Labels", "io.kubernetes.pod.namespace", c->pod_namespace, sizeof(c->pod_namespace));
		docker_pod_labels(c, root, cfg);
		rt_take_labels(cfg, "Labels", NULL, c->labels, sizeof(c->labels));
	}
	json_object_put(doc);
	rt_said(c, "docker", "config.v2.json");
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

	rt_take(annotations, "io.kubernetes.cri-o.SandboxID", NULL, id, sizeof(id));
	doc = sandbox_json(root, STORAGE_RUN, id, "userdata/config.json");
	if (jdoc_member(doc, "annotations", &a) == 0 && jdoc_member(a, "io.kubernetes.cri-o.Labels", &l) == 0 &&
	    jdoc_text(l, text, sizeof(text)) == 0)
		labels_text(text, c->pod_labels, sizeof(c->pod_labels));
	json_object_put(doc);
}

/* The value of key in the bucket at names of the BoltDB file root+path: a malloc'd text, or NULL. */
char *rt_bolt_value(const char *root, const char *path, const char *const *names, size_t depth, const char *key,
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

	rt_take(annotations, "io.kubernetes.cri.sandbox-id", NULL, id, sizeof(id));
	if (!cgroup_hex_id(id, strlen(id)) ||
	    !(any = rt_bolt_value(root, db, names, 5, "io.cri-containerd.sandbox.metadata", &len)))
		return;
	if (any_value((const unsigned char *)any, len, &json, &n) == 0 && (doc = jdoc_parse(json, n)) &&
	    jdoc_member(doc, "Metadata", &v) == 0)
		rt_take_labels(v, "Config", "labels", c->pod_labels, sizeof(c->pod_labels));
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
void rt_take_bytes(const char *v, size_t len, char *out, size_t size)
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
		v = rt_bolt_value(root, db, names, 4, "image", &len);
		rt_take_bytes(v, len, c->image, sizeof(c->image));
		free(v);
	}
	if (!c->name[0]) {
		v = rt_bolt_value(root, db, names, 5, "nerdctl/name", &len);
		rt_take_bytes(v, len, c->name, sizeof(c->name));
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
	struct json_object *a, *doc = rt_json(root, path, STATE_MAX);

	if (!doc)
		return false;
	if (jdoc_member(doc, "annotations", &a) == 0) {
		rt_take(a, "io.kubernetes.cri.container-name", NULL, c->name, sizeof(c->name));
		rt_take(a, "io.kubernetes.cri.image-name", NULL, c->image, sizeof(c->image));
		rt_take(a, "io.kubernetes.cri.sandbox-name", NULL, c->pod_name, sizeof(c->pod_name));
		rt_take(a, "io.kubernetes.cri.sandbox-namespace", NULL, c->pod_namespace, sizeof(c->pod_namespace));
		rt_take(a, "io.kubernetes.container.name", NULL, c->name, sizeof(c->name));
		rt_take(a, "io.kubernetes.cri-o.ImageName", NULL, c->image, sizeof(c->image));
		rt_take(a, "io.kubernetes.pod.name", NULL, c->pod_name, sizeof(c->pod_name));
		rt_take(a, "io.kubernetes.pod.namespace", NULL, c->pod_namespace, sizeof(c->pod_namespace));
		/* A Kubernetes pod's UID, where the cgroup did not give it (systemd's driver without kubepods). */
		if (!c->kube) {
			rt_take(a, "io.kubernetes.cri.sandbox-uid", NULL, c->pod, sizeof(c->pod));
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
	rt_said(c, runtime, "config.json");
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
			(void) rt_storage(c, &(struct graph) { root, GRAPH_ROOT, 0 }, "cri-o");
			rt_said(c, "cri-o", "config.json");
		}
	}
	if (!found && (any || strcmp(rt, "podman") == 0))
		found = rt_podman(c, &(struct graph) { root, GRAPH_ROOT, 0 });
	if (!found && (any || strcmp(rt, "docker") == 0))
		found = docker(c, root);
	if (found)
		return;
	(void) snprintf(c->state, sizeof(c->state), "none: no file of its runtime names it");
	/* A path /NS/ID that no containerd task has is no container at all. */
	if (c->ns[0])
		c->id[0] = c->ns[0] = c->state[0] = '\0';
}
