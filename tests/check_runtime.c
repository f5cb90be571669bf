/*
 * check_runtime.c: the JSON policy (base/jsondoc.c, over json-c) against what RFC 8259 allows and what a hostile pod author could
 * write, and runtime_read() against the files each runtime writes, laid out under a directory of the test's.
 */
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include "base.h"
#include "intake.h"
#include "boltmake.h"
#include "unit.h"

#define ID64 "4f1c6e0b3a2d9e8f7c6b5a4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f"
#define ID3 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "72cd1a14bf8249aa8e1e0a2c1f3b5d7e9f0a1b2c3d4e5f60718293a4b5c6d7e8"

/* Whether text is taken as one whole document (0) or not (-EINVAL). */
static int whole(const char *text)
{
	struct json_object *doc = jdoc_parse(text, strlen(text));

	json_object_put(doc);
	return doc ? 0 : -EINVAL;
}

/* The string at the path of keys a.b (b may be NULL) in text: 0 and out, or the first error. */
static int at(const char *text, const char *a, const char *b, char *out, size_t len)
{
	struct json_object *v, *doc = jdoc_parse(text, strlen(text));
	int r = doc ? 0 : -EINVAL;

	out[0] = '\0';
	if (r == 0)
		r = jdoc_member(doc, a, &v);
	if (r == 0 && b)
		r = jdoc_member(v, b, &v);
	if (r == 0)
		r = jdoc_text(v, out, len);
	json_object_put(doc);
	return r;
}

START_TEST(test_valid)
{
	char s[64];

	ck_assert_int_eq(at("{\"a\":\"x\"}", "a", NULL, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "x");
	ck_assert_int_eq(at(" {\"n\": -1.5e+3, \"t\": [true, false, null, {}], \"a\" : { \"b\" : \"y\" } } \n", "a", "b",
			    s, sizeof(s)), 0);
	ck_assert_str_eq(s, "y");
	/* Escapes: the two-byte, a surrogate pair, the slash. */
	ck_assert_int_eq(at("{\"a\":\"caf\\u00e9 \\ud83d\\ude00 a\\/b \\\"q\\\" \\\\\"}", "a", NULL, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "caf\xc3\xa9 \xf0\x9f\x98\x80 a/b \"q\" \\");
	/* Raw UTF-8 passes as it is. */
	ck_assert_int_eq(at("{\"a\":\"\xc3\xa9t\xc3\xa9\"}", "a", NULL, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "\xc3\xa9t\xc3\xa9");
	/* A lone surrogate escape is U+FFFD (json-c's reading, and what Go writes for invalid text), never its bytes. */
	ck_assert_int_eq(at("{\"a\":\"\\ud83d\\u0041\"}", "a", NULL, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "\xef\xbf\xbd" "A");
	/* The last of two members of one name, as most readers take it; a key escaped is the same key. */
	ck_assert_int_eq(at("{\"a\":\"1\",\"b\":2,\"\\u0061\":\"2\"}", "a", NULL, s, sizeof(s)), 0);
	ck_assert_str_eq(s, "2");
	ck_assert_int_eq(at("{\"a\":\"1\"}", "b", NULL, s, sizeof(s)), -ENOENT);
	/* Not a string, not an object. */
	ck_assert_int_eq(at("{\"a\":1}", "a", NULL, s, sizeof(s)), -EINVAL);
	ck_assert_int_eq(at("{\"a\":\"1\"}", "a", "b", s, sizeof(s)), -EINVAL);
}
END_TEST

/* What no name may hold: each string refused whole, never half given, whether or not its document is taken. */
static const char *const refused_strings[] = {
	"{\"a\":\"x\\ny\"}", "{\"a\":\"x\\u0000y\"}", "{\"a\":\"x\\u001by\"}", "{\"a\":\"x\\u0085y\"}",
	"{\"a\":\"x\xc2\x9b" "y\"}", "{\"a\":\"x\\u007fy\"}", "{\"a\":\"x\x7fy\"}",
	/* Invalid UTF-8: overlong, an encoded surrogate, past U+10FFFF, cut short; raw control characters. */
	"{\"a\":\"\xc0\xaf\"}", "{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\xf5\x80\x80\x80\"}", "{\"a\":\"\xe2\x82\"}",
	"{\"a\":\"\x01\"}", "{\"a\":\"\t\"}",
};

/*
 * Not JSON, refused whole. json-c (0.16, strict) also takes a few things RFC 8259 does not: "[1.]", "[NaN]",
 * "{'a':1}", and a lone surrogate escape as U+FFFD (test_valid). None is a string coresink reads a name from, and
 * the runtimes (Go's encoding/json) never write them: left to json-c.
 */
static const char *const not_json[] = {
	"", "{", "{\"a\":\"x\"", "{\"a\":\"x\"}}", "{\"a\":\"x\"} x", "{\"a\" \"x\"}", "{\"a\":\"x\",}", "[1,]", "[01]",
	"[.5]", "[1e]", "[-]", "[tru]", "[nul]", "{a:1}", "[\"\\x41\"]", "[\"\\u12\"]", "\"x", "[1 2]",
};

START_TEST(test_refused)
{
	char s[64];

	for (size_t i = 0; i < ELEMENTSOF(refused_strings); i++) {
		/* Either the document is refused, or the string is: no value comes out. */
		int r = at(refused_strings[i], "a", NULL, s, sizeof(s));

		ck_assert_msg(r == -EINVAL, "%zu: %d", i, r);
		ck_assert_str_eq(s, "");
	}
	for (size_t i = 0; i < ELEMENTSOF(not_json); i++)
		ck_assert_msg(whole(not_json[i]) == -EINVAL, "taken: %s", not_json[i]);
}
END_TEST

START_TEST(test_bounds)
{
	char deep[256], s[8];
	struct json_object *doc;

	/* Nesting: 64 levels read, 65 refused, so that no document runs the stack down. */
	memset(deep, '[', 64), memset(deep + 64, ']', 64), deep[128] = '\0';
	ck_assert_int_eq(whole(deep), 0);
	memset(deep, '[', 65), memset(deep + 65, ']', 65), deep[130] = '\0';
	ck_assert_int_eq(whole(deep), -EINVAL);
	/* A name that does not fit is no name: nothing of it is given. */
	ck_assert_int_eq(at("{\"a\":\"12345678\"}", "a", NULL, s, sizeof(s)), -ENAMETOOLONG);
	ck_assert_str_eq(s, "");
	ck_assert_int_eq(at("{\"a\":\"1234567\"}", "a", NULL, s, sizeof(s)), 0);
	ck_assert_int_eq(at("{\"a\":\"\\u00e9\\u00e9\\u00e9\\u00e9\"}", "a", NULL, s, sizeof(s)), -ENAMETOOLONG);
	/* A document's length is its own: bytes past n are not read. */
	ck_assert_ptr_nonnull(doc = jdoc_parse("[1] garbage", 3));
	json_object_put(doc);
	ck_assert_ptr_nonnull(doc = jdoc_parse("{\"a\":[1]}\n\t ", 11));
	json_object_put(doc);
	/* Blanks after the value, not anything else. */
	ck_assert_int_eq(whole(" [ \"a\" , {\"b\":[1,2]}, 3 ] \r\n"), 0);
	ck_assert_int_eq(whole("[1]\f"), -EINVAL);
}
END_TEST

/* Writes text to root/path, making its directories. */
static void put(const char *root, const char *path, const char *text)
{
	char full[PATH_MAX];
	FILE *f;

	(void) snprintf(full, sizeof(full), "%s%s", root, path);
	for (char *p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		(void) mkdir(full, 0755);
		*p = '/';
	}
	f = fopen(full, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void read_path(const char *root, const char *path, struct container *c)
{
	cgroup_container(path, c);
	runtime_read(c, root);
}

/* What a lookup should have named: each field given is checked, NULL ones are not. */
struct named {
	const char *runtime, *id, *name, *image, *labels, *pod, *pod_name, *pod_namespace, *pod_labels, *state,
		*pod_from;
};

/* c as w says, field by field, each named where it is not. */
static void assert_named(const struct container *c, struct named w)
{
	const struct { const char *field, *want, *got; } f[] = {
		{ "runtime", w.runtime, c->runtime }, { "id", w.id, c->id }, { "name", w.name, c->name },
		{ "image", w.image, c->image }, { "labels", w.labels, c->labels }, { "pod", w.pod, c->pod },
		{ "pod_name", w.pod_name, c->pod_name }, { "pod_namespace", w.pod_namespace, c->pod_namespace },
		{ "pod_labels", w.pod_labels, c->pod_labels }, { "state", w.state, c->state },
		{ "pod_from", w.pod_from, c->pod_from },
	};

	for (size_t i = 0; i < ELEMENTSOF(f); i++)
		ck_assert_msg(!f[i].want || strcmp(f[i].want, f[i].got) == 0, "%s: '%s', not '%s'", f[i].field, f[i].got,
			      f[i].want);
}

START_TEST(test_runtimes)
{
	char root[256];
	struct container c;

	unit_tmpdir(root, sizeof(root));
	/* Docker: its own record, with cri-dockerd's labels where a kubelet made it. */
	put(root, "/var/lib/docker/containers/" ID64 "/config.v2.json",
	    "{\"ID\":\"" ID64 "\",\"Name\":\"/web\",\"Config\":{\"Image\":\"nginx:1.27\",\"Env\":[\"A=1\"],"
	    "\"Labels\":{\"io.kubernetes.pod.name\":\"web-7\",\"io.kubernetes.pod.namespace\":\"shop\"}}}");
	read_path(root, "/system.slice/docker-" ID64 ".scope", &c);
	assert_named(&c, (struct named) { .runtime = "docker", .name = "web", .image = "nginx:1.27",
					  .pod_name = "web-7", .pod_namespace = "shop",
					  .state = "config.v2.json" });
	/* The kubelet's labels name the pod: they are not the container's own. */
	ck_assert_str_eq(c.labels, "");
	/* A plain container's own labels (docker run --label, compose's), those in a label's alphabet. */
	put(root, "/var/lib/docker/containers/" ID3 "/config.v2.json",
	    "{\"ID\":\"" ID3 "\",\"Name\":\"/pay\",\"Config\":{\"Image\":\"pay:3\",\"Labels\":{"
	    "\"com.docker.compose.project\":\"shop\",\"team\":\"pay\",\"note\":\"two words\",\"x\":\"a=b\"}}}");
	read_path(root, "/system.slice/docker-" ID3 ".scope", &c);
	ck_assert_str_eq(c.labels, "com.docker.compose.project=shop team=pay");

	/* containerd's CRI plugin: the bundle's annotations, found though the cgroupfs path does not name it. */
	put(root, "/run/containerd/io.containerd.runtime.v2.task/k8s.io/" ID2 "/config.json",
	    "{\"ociVersion\":\"1.1.0\",\"annotations\":{\"io.kubernetes.cri.container-type\":\"container\","
	    "\"io.kubernetes.cri.container-name\":\"worker\",\"io.kubernetes.cri.image-name\":\"shop/worker:2\","
	    "\"io.kubernetes.cri.sandbox-name\":\"web-7\",\"io.kubernetes.cri.sandbox-namespace\":\"shop\","
	    "\"io.kubernetes.cri.sandbox-uid\":\"3c1f5e9a-2b4d-4e6f-8a0b-1c2d3e4f5a6b\"}}");
	read_path(root, "/kubepods/besteffort/pod3c1f5e9a-2b4d-4e6f-8a0b-1c2d3e4f5a6b/" ID2, &c);
	assert_named(&c, (struct named) { .runtime = "containerd", .name = "worker", .image = "shop/worker:2",
					  .pod_name = "web-7", .pod_namespace = "shop",
					  .pod = "3c1f5e9a-2b4d-4e6f-8a0b-1c2d3e4f5a6b" });

	/* Plain containerd: /NAMESPACE/ID is one only where containerd has that task. */
	put(root, "/run/containerd/io.containerd.runtime.v2.task/default/" ID3 "/config.json", "{\"ociVersion\":\"1\"}");
	read_path(root, "/default/" ID3, &c);
	ck_assert_str_eq(c.runtime, "containerd");
	ck_assert_str_eq(c.id, ID3);
	put(root, "/run/containerd/io.containerd.runtime.v2.task/default/web-1/config.json", "{}");
	read_path(root, "/default/web-1", &c);
	ck_assert_str_eq(c.id, "web-1");
	ck_assert_str_eq(c.runtime, "containerd");
	read_path(root, "/other/" ID3, &c);
	ck_assert_str_eq(c.id, "");
	ck_assert_str_eq(c.runtime, "");

	/* CRI-O: its bundle's io.kubernetes.* annotations. */
	put(root, "/run/containers/storage/overlay-containers/" ID64 "/userdata/config.json",
	    "{\"annotations\":{\"io.kubernetes.container.name\":\"api\",\"io.kubernetes.cri-o.ImageName\":"
	    "\"quay.io/shop/api:3\",\"io.kubernetes.pod.name\":\"api-0\",\"io.kubernetes.pod.namespace\":\"billing\"}}");
	read_path(root, "/kubepods.slice/kubepods-pod3c1f5e9a_2b4d_4e6f_8a0b_1c2d3e4f5a6b.slice/crio-" ID64 ".scope", &c);
	ck_assert_str_eq(c.runtime, "cri-o");
	ck_assert_str_eq(c.name, "api");
	ck_assert_str_eq(c.image, "quay.io/shop/api:3");
	ck_assert_str_eq(c.pod_namespace, "billing");

	/* Podman: containers/storage's record, its metadata JSON in a string. */
	put(root, "/var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" ID64 "\",\"names\":[\"other\"]},{\"id\":\"" ID2 "\",\"names\":[\"web-7-worker\"],"
	    "\"metadata\":\"{\\\"image-name\\\":\\\"localhost/app:1\\\",\\\"name\\\":\\\"web-7-worker\\\"}\"}]");
	read_path(root, "/libpod_parent/" ID64 "/libpod-" ID2, &c);
	assert_named(&c, (struct named) { .runtime = "podman", .name = "web-7-worker", .image = "localhost/app:1",
					  .pod = ID64, .state = "containers.json" });
	unit_rmtree(root);
}
END_TEST

/*
 * A pod's labels where the runtimes keep them (cri-dockerd: its sandbox container's; CRI-O: its sandbox's bundle),
 * in a Kubernetes label's alphabet only, without the kubelet's own, never cut.
 */
START_TEST(test_pod_labels)
{
	char root[256], big[2048];
	struct container c;
	size_t n = 0;

	unit_tmpdir(root, sizeof(root));
	put(root, "/var/lib/docker/containers/" ID3 "/config.v2.json",
	    "{\"Name\":\"/k8s_POD_api-0\",\"Config\":{\"Labels\":{\"io.kubernetes.docker.type\":\"podsandbox\","
	    "\"io.kubernetes.pod.name\":\"api-0\",\"app\":\"api\",\"tier\":\"back\",\"annotation.kubernetes.io/x\":\"y\","
	    "\"note\":\"two words\",\"evil\":\"a=b\",\"app.kubernetes.io/part-of\":\"shop\"}}}");
	put(root, "/var/lib/docker/containers/" ID64 "/config.v2.json",
	    "{\"Name\":\"/k8s_api\",\"Config\":{\"Labels\":{\"io.kubernetes.pod.name\":\"api-0\","
	    "\"io.kubernetes.sandbox.id\":\"" ID3 "\",\"own\":\"label\"}}}");
	read_path(root, "/docker/" ID64, &c);
	ck_assert_str_eq(c.pod_labels, "app=api tier=back app.kubernetes.io/part-of=shop");
	/* A sandbox id that is not one names no file. */
	put(root, "/var/lib/docker/containers/" ID2 "/config.v2.json",
	    "{\"Config\":{\"Labels\":{\"io.kubernetes.sandbox.id\":\"../" ID3 "\"}}}");
	read_path(root, "/docker/" ID2, &c);
	ck_assert_str_eq(c.pod_labels, "");

	/* CRI-O: the sandbox's io.kubernetes.cri-o.Labels, JSON in a string. */
	put(root, "/run/containers/storage/overlay-containers/" ID3 "/userdata/config.json",
	    "{\"annotations\":{\"io.kubernetes.cri-o.Labels\":\"{\\\"app\\\":\\\"billing\\\","
	    "\\\"io.kubernetes.pod.namespace\\\":\\\"billing\\\"}\"}}");
	put(root, "/run/containers/storage/overlay-containers/" ID64 "/userdata/config.json",
	    "{\"annotations\":{\"io.kubernetes.pod.name\":\"api-0\",\"io.kubernetes.cri-o.SandboxID\":\"" ID3 "\"}}");
	read_path(root, "/kubepods.slice/crio-" ID64 ".scope", &c);
	ck_assert_str_eq(c.runtime, "cri-o");
	ck_assert_str_eq(c.pod_labels, "app=billing");

	/* More than the field holds: whole labels while they fit, none cut. */
	n += (size_t)snprintf(big + n, sizeof(big) - n, "{\"Config\":{\"Labels\":{");
	for (int i = 0; i < 80; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "%s\"k%02d\":\"vvvvvvvvvv\"", i ? "," : "", i);
	(void) snprintf(big + n, sizeof(big) - n, "}}}");
	put(root, "/var/lib/docker/containers/" ID3 "/config.v2.json", big);
	read_path(root, "/docker/" ID64, &c);
	ck_assert_uint_lt(strlen(c.pod_labels), sizeof(c.pod_labels));
	ck_assert_uint_gt(strlen(c.pod_labels), sizeof(c.pod_labels) - 16);
	ck_assert_str_eq(strrchr(c.pod_labels, ' ') + 1 + 3, "=vvvvvvvvvv");
	unit_rmtree(root);
}
END_TEST

/* What is not the runtime's record says nothing: a link in its place, a file too large, a name with a control. */
START_TEST(test_runtime_refuses)
{
	char root[256], target[PATH_MAX], link[PATH_MAX];
	struct container c;
	FILE *f;

	unit_tmpdir(root, sizeof(root));
	put(root, "/elsewhere.json", "{\"Name\":\"/evil\",\"Config\":{\"Image\":\"evil\"}}");
	put(root, "/var/lib/docker/containers/" ID64 "/x", "");
	(void) snprintf(target, sizeof(target), "%s/elsewhere.json", root);
	(void) snprintf(link, sizeof(link), "%s/var/lib/docker/containers/" ID64 "/config.v2.json", root);
	ck_assert_int_eq(symlink(target, link), 0);
	read_path(root, "/docker/" ID64, &c);
	ck_assert_str_eq(c.name, "");
	ck_assert_str_eq(c.runtime, "docker");
	ck_assert_str_eq(c.state, "none: no file of its runtime names it");

	put(root, "/var/lib/docker/containers/" ID2 "/config.v2.json",
	    "{\"Name\":\"/a\\u001b]0;x\\u0007\",\"Config\":{\"Image\":\"ok:1\"}}");
	read_path(root, "/docker/" ID2, &c);
	ck_assert_str_eq(c.name, "");
	ck_assert_str_eq(c.image, "ok:1");

	(void) snprintf(link, sizeof(link), "%s/run/containers/storage/overlay-containers/" ID2 "/userdata/config.json",
			root);
	put(root, "/run/containers/storage/overlay-containers/" ID2 "/userdata/config.json", "");
	f = fopen(link, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"annotations\":{\"io.kubernetes.pod.name\":\"big\"},\"pad\":\"", f);
	for (int i = 0; i < (1 << 20); i++)
		fputc('x', f);
	fputs("\"}", f);
	ck_assert_int_eq(fclose(f), 0);
	read_path(root, "/kubepods.slice/crio-" ID2 ".scope", &c);
	ck_assert_str_eq(c.pod_name, "");
	unit_rmtree(root);
}
END_TEST

/*
 * A podman API at root's podman.sock, in a child: answers a request for a pod with answer (NULL: accepts and never
 * answers), one for a container with ctr (NULL: closes); two requests at most. Its pid; the socket is made before
 * this returns.
 */
static pid_t fake_api(const char *root, const char *answer, const char *ctr)
{
	char path[PATH_MAX];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;
	pid_t pid;

	put(root, "/run/podman/x", "");
	(void) snprintf(path, sizeof(path), "%s/run/podman/podman.sock", root);
	(void) unlink(path);
	ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char req[1024] = "";

		for (int i = 0; i < 2; i++) {
			int c = accept(fd, NULL, NULL);
			ssize_t n = c >= 0 ? read(c, req, sizeof(req) - 1) : -1;
			const char *a = n > 0 && strstr(req, "/libpod/containers/") ? ctr : answer;

			if (n > 0 && a)
				(void) !write(c, a, strlen(a));
			if (!a && a == answer)
				pause();
			(void) close(c);
			/* The pod's request is the last. */
			if (a == answer)
				break;
		}
		_exit(0);
	}
	(void) close(fd);
	return pid;
}

static long long ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A podman pod's name, which only podman's database and its API know: asked, within a bound, and checked. */
START_TEST(test_podman_api)
{
	char root[256];
	struct container c;
	long long t0;
	pid_t pid;

	unit_tmpdir(root, sizeof(root));
	put(root, "/var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" ID2 "\",\"names\":[\"web-7-worker\"]}]");
	pid = fake_api(root, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"Id\":\"" ID64 "\",\"Name\":\"web-7\","
		       "\"Labels\":{\"app\":\"web\",\"tier\":\"front\"}}", NULL);
	read_path(root, "/libpod_parent/" ID64 "/libpod-" ID2, &c);
	ck_assert_int_eq(unit_reap(pid), 0);
	ck_assert_str_eq(c.pod_name, "web-7");
	ck_assert_str_eq(c.pod_labels, "app=web tier=front");
	ck_assert_str_eq(c.name, "web-7-worker");
	ck_assert_str_eq(c.pod_from, "podman's API");
	/* Not found, or a name with a control character: no name. */
	pid = fake_api(root, "HTTP/1.1 404 Not Found\r\n\r\n{\"Name\":\"web-7\"}", NULL);
	read_path(root, "/libpod_parent/" ID64 "/libpod-" ID2, &c);
	(void) unit_reap(pid);
	ck_assert_str_eq(c.pod_name, "");
	pid = fake_api(root, "HTTP/1.1 200 OK\r\n\r\n{\"Name\":\"a\\u001b[2Jb\"}", NULL);
	read_path(root, "/libpod_parent/" ID64 "/libpod-" ID2, &c);
	(void) unit_reap(pid);
	ck_assert_str_eq(c.pod_name, "");
	/* One that never answers costs the bound, then nothing. */
	pid = fake_api(root, NULL, NULL);
	t0 = ms_now();
	read_path(root, "/libpod_parent/" ID64 "/libpod-" ID2, &c);
	ck_assert_int_lt(ms_now() - t0, 2000);
	ck_assert_str_eq(c.pod_name, "");
	ck_assert_str_eq(c.pod_from, "podman's API: no answer within 250 ms");
	ck_assert_str_eq(c.name, "web-7-worker");
	(void) kill(pid, SIGKILL);
	(void) unit_reap(pid);
	/* Where the cgroup names no pod (a pod without an infra container), the container is asked for its "Pod". */
	pid = fake_api(root, "HTTP/1.1 200 OK\r\n\r\n{\"Name\":\"web-8\"}",
		       "HTTP/1.1 200 OK\r\n\r\n{\"Id\":\"" ID2 "\",\"Pod\":\"" ID3 "\"}");
	read_path(root, "/libpod_parent/libpod-" ID2, &c);
	ck_assert_int_eq(unit_reap(pid), 0);
	ck_assert_str_eq(c.pod, ID3);
	ck_assert_str_eq(c.pod_name, "web-8");
	/* A container outside any pod, or a "Pod" that is no id: no pod, and the pod is not asked for. */
	pid = fake_api(root, "HTTP/1.1 200 OK\r\n\r\n{\"Name\":\"nopod\"}", "HTTP/1.1 200 OK\r\n\r\n{\"Pod\":\"\"}");
	read_path(root, "/libpod_parent/libpod-" ID2, &c);
	ck_assert_str_eq(c.pod, "");
	ck_assert_str_eq(c.pod_name, "");
	(void) kill(pid, SIGKILL);
	(void) unit_reap(pid);
	pid = fake_api(root, "HTTP/1.1 200 OK\r\n\r\n{\"Name\":\"nopod\"}", "HTTP/1.1 200 OK\r\n\r\n{\"Pod\":\"../x\"}");
	read_path(root, "/libpod_parent/libpod-" ID2, &c);
	ck_assert_str_eq(c.pod, "");
	ck_assert_str_eq(c.pod_name, "");
	(void) kill(pid, SIGKILL);
	(void) unit_reap(pid);
	unit_rmtree(root);
	unit_tmpdir(root, sizeof(root));
	put(root, "/var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" ID2 "\",\"names\":[\"web-7-worker\"]}]");
	read_path(root, "/libpod_parent/" ID64 "/libpod-" ID2, &c);
	ck_assert_str_eq(c.pod_name, "");
	ck_assert_str_eq(c.name, "web-7-worker");
	ck_assert_str_eq(c.pod_from, "podman's API: not listening");
	/* Outside a pod, nothing said. */
	read_path(root, "/libpod_parent/libpod-" ID2, &c);
	ck_assert_str_eq(c.pod_from, "");
	unit_rmtree(root);
}
END_TEST

/* A BoltDB file at root+path whose root bucket is one leaf page of the n elements e (page size 4096). */
static void put_bolt(const char *root, const char *path, const struct bm_elem *e, unsigned n)
{
	static unsigned char db[4 * 4096];
	char full[PATH_MAX];
	int fd;

	put(root, path, "");
	memset(db, 0, sizeof(db));
	bm_meta(db, 4096, 0, 3, 4, 7);
	bm_meta(db, 4096, 1, 3, 4, 6);
	bm_header(db + 2 * 4096, 2, 0x10, 0, 0);
	bm_page(db + 3 * 4096, 3, BM_LEAF, 0, e, n);
	(void) snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, db, sizeof(db)), (ssize_t)sizeof(db));
	(void) close(fd);
}

/* A bucket holding one element, inline, into v: the element for it, named key. */
static struct bm_elem nest(unsigned char *v, const char *key, struct bm_elem inner)
{
	return (struct bm_elem) { BM_BUCKET, key, v, bm_bucket(v, 0, &inner, 1), 0 };
}

/* containerd's database with the CRI sandbox ID3's extension io.cri-containerd.sandbox.metadata = any. */
static void put_sandbox_metadata(const char *root, const unsigned char *any, size_t n)
{
	unsigned char b1[1024], b2[1024], b3[1024], b4[1024], b5[1024];

	put_bolt(root, "/var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db",
		 (struct bm_elem[]) { nest(b1, "v1", nest(b2, "k8s.io", nest(b3, "containers", nest(b4, ID3,
			nest(b5, "extensions", (struct bm_elem) { 0, "io.cri-containerd.sandbox.metadata", any, n,
								  0 }))))) }, 1);
}

/* containerd's database at db with plain container default/ID3's record: its image, and its label nerdctl/name. */
static void put_containerd_record_at(const char *root, const char *db, const char *image, size_t ilen,
				     const char *name, size_t nlen)
{
	unsigned char b1[1024], b2[1024], b3[1024], b4[1024], b5[1024];

	put_bolt(root, db,
		 (struct bm_elem[]) { nest(b1, "v1", nest(b2, "default", nest(b3, "containers", (struct bm_elem) {
			BM_BUCKET, ID3, b4, bm_bucket(b4, 0, (struct bm_elem[]) {
				{ 0, "image", image, ilen, 0 },
				{ BM_BUCKET, "labels", b5, bm_bucket(b5, 0, (struct bm_elem[]) {
					{ 0, "nerdctl/name", name, nlen, 0 }, { 0, "team", "ops", 3, 0 } }, 2), 0 } }, 2), 0 }))) },
		 1);
}

static void put_containerd_record(const char *root, const char *image, size_t ilen, const char *name, size_t nlen)
{
	put_containerd_record_at(root, "/var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db", image, ilen, name,
				 nlen);
}

/* A process of the fake /proc under root: its comm, its real uid, its command line (argv's words, NUL-ended). */
static void put_process(const char *root, int pid, const char *comm, int uid, const char *argv, size_t len)
{
	char path[64], text[256], full[PATH_MAX];
	FILE *f;

	(void) snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	(void) snprintf(text, sizeof(text), "%s\n", comm);
	put(root, path, text);
	(void) snprintf(path, sizeof(path), "/proc/%d/status", pid);
	(void) snprintf(text, sizeof(text), "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t%d\t%d\t%d\t%d\n",
			comm, uid, uid, uid, uid);
	put(root, path, text);
	(void) snprintf(full, sizeof(full), "%s/proc/%d/cmdline", root, pid);
	f = fopen(full, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(argv, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * A containerd that keeps its state and root elsewhere, found as it runs: k3s's (its command line), one whose config
 * names them (-c FILE: its top-level state = and root =); a user's process named containerd, or a path with "..",
 * names nothing.
 */
START_TEST(test_containerd_elsewhere)
{
	static const char k3s[] = "containerd\0-c\0/var/lib/rancher/k3s/agent/etc/containerd/config.toml\0-a\0"
				  "/run/k3s/containerd/containerd.sock\0--state\0/run/k3s/containerd\0--root\0"
				  "/var/lib/rancher/k3s/agent/containerd\0";
	static const char own[] = "/usr/bin/containerd\0--config=/etc/own.toml\0";
	static const char fake[] = "containerd\0--state\0/home/u/state\0--root\0/home/u/root\0";
	static const char dots[] = "containerd\0--state\0/run/../home/u/state\0";
	char root[256], comm[PATH_MAX];
	struct container c;

	unit_tmpdir(root, sizeof(root));
	put(root, "/run/k3s/containerd/io.containerd.runtime.v2.task/default/" ID3 "/config.json", "{\"ociVersion\":\"1\"}");
	put_containerd_record_at(root, "/var/lib/rancher/k3s/agent/containerd/io.containerd.metadata.v1.bolt/meta.db",
				 "docker.io/rancher/app:2", 23, "app", 3);
	/* No containerd runs: the path alone is not a container. */
	read_path(root, "/default/" ID3, &c);
	ck_assert_str_eq(c.id, "");
	/* A user's process that says it is one is not listened to. */
	put(root, "/home/u/state/io.containerd.runtime.v2.task/default/" ID3 "/config.json", "{\"ociVersion\":\"1\"}");
	put_process(root, 900, "containerd", 1000, fake, sizeof(fake) - 1);
	read_path(root, "/default/" ID3, &c);
	ck_assert_str_eq(c.id, "");
	/* Nor a root's whose path climbs out. */
	put_process(root, 901, "containerd", 0, dots, sizeof(dots) - 1);
	read_path(root, "/default/" ID3, &c);
	ck_assert_str_eq(c.id, "");
	/* k3s's: its bundle, and its own database for the image and name. */
	put_process(root, 4242, "containerd", 0, k3s, sizeof(k3s) - 1);
	read_path(root, "/default/" ID3, &c);
	assert_named(&c, (struct named) { .runtime = "containerd", .id = ID3, .state = "config.json",
					  .image = "docker.io/rancher/app:2", .name = "app" });
	/* Its own labels, nerdctl's (nerdctl/name) left out. */
	ck_assert_str_eq(c.labels, "team=ops");
	/* One whose config says where (the command line naming neither). */
	(void) snprintf(comm, sizeof(comm), "%s/proc/4242/comm", root);
	ck_assert_int_eq(unlink(comm), 0);
	put(root, "/etc/own.toml", "version = 2\n# state = \"/wrong\"\nroot = \"/srv/ctd/root\"\n  state=\"/srv/ctd/state\"\n"
	    "[grpc]\n  address = \"/srv/ctd/sock\"\n[plugins]\n  state = \"/not/top\"\n");
	put(root, "/srv/ctd/state/io.containerd.runtime.v2.task/default/" ID3 "/config.json", "{\"ociVersion\":\"1\"}");
	put_containerd_record_at(root, "/srv/ctd/root/io.containerd.metadata.v1.bolt/meta.db", "docker.io/own/app:3", 19,
				 "own", 3);
	put_process(root, 4343, "containerd", 0, own, sizeof(own) - 1);
	read_path(root, "/default/" ID3, &c);
	ck_assert_str_eq(c.id, ID3);
	ck_assert_str_eq(c.image, "docker.io/own/app:3");
	ck_assert_str_eq(c.name, "own");
	unit_rmtree(root);
}
END_TEST

/*
 * A pod's name and labels where podman 4 (BoltDB: pod/ID/config) and containerd's CRI plugin (its metadata database:
 * the sandbox container's extension, JSON in a protobuf Any) keep them, without podman's API.
 */
START_TEST(test_pod_databases)
{
	static const char config[] = "{\"id\":\"" ID64 "\",\"name\":\"web-7\",\"labels\":{\"app\":\"web\","
				     "\"tier\":\"front\"},\"hasInfra\":true}";
	static const char meta[] = "{\"Version\":\"v1\",\"Metadata\":{\"ID\":\"" ID3 "\",\"Name\":\"web-7\","
				   "\"Config\":{\"metadata\":{\"name\":\"web-7\",\"namespace\":\"shop\"},"
				   "\"labels\":{\"app\":\"web\",\"io.kubernetes.pod.x\":\"y\",\"tier\":\"back\"}}}}";
	static const char type[] = "github.com/containerd/cri/pkg/store/sandbox/Metadata";
	static const char ctr_config[] = "{\"id\":\"" ID2 "\",\"name\":\"web-7-db\",\"rootfsImageName\":\"localhost/web:7\","
					 "\"labels\":{\"team\":\"pay\"},\"pod\":\"" ID64 "\"}";
	unsigned char b1[1024], b2[1024], b3[1024], b4[1024], any[1024];
	char root[256];
	struct container c;
	size_t n = 0;

	unit_tmpdir(root, sizeof(root));
	put(root, "/var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" ID2 "\",\"names\":[\"web-7-worker\"]}]");
	put_bolt(root, "/var/lib/containers/storage/libpod/bolt_state.db",
		 (struct bm_elem[]) { nest(b1, "pod", nest(b2, ID64, (struct bm_elem) { 0, "config", config,
							   strlen(config), 0 })) }, 1);
	read_path(root, "/libpod_parent/" ID64 "/libpod-" ID2, &c);
	ck_assert_str_eq(c.name, "web-7-worker");
	ck_assert_str_eq(c.pod_name, "web-7");
	ck_assert_str_eq(c.pod_labels, "app=web tier=front");
	ck_assert_str_eq(c.pod_from, "bolt_state.db");
	/* Another pod's record is not this one's. */
	read_path(root, "/libpod_parent/" ID3 "/libpod-" ID2, &c);
	ck_assert_str_eq(c.pod_name, "");
	/* A pod without an infra container has no cgroup: the container's record (ctr/ID, pod-id) names the pod. */
	put_bolt(root, "/var/lib/containers/storage/libpod/bolt_state.db",
		 (struct bm_elem[]) { nest(b1, "ctr", (struct bm_elem) { BM_BUCKET, ID2, b2, bm_bucket(b2, 0,
					(struct bm_elem[]) { { 0, "config", ctr_config, strlen(ctr_config), 0 },
							     { 0, "pod-id", ID64, 64, 0 } }, 2), 0 }),
				      nest(b3, "pod", nest(b4, ID64, (struct bm_elem) { 0, "config", config,
							       strlen(config), 0 })) }, 2);
	read_path(root, "/libpod_parent/libpod-" ID2, &c);
	ck_assert_str_eq(c.pod, ID64);
	ck_assert_str_eq(c.pod_name, "web-7");
	/* The container's own name, image and labels, from its config: podman's word, not containers.json's. */
	ck_assert_str_eq(c.labels, "team=pay");
	ck_assert_str_eq(c.name, "web-7-db");
	ck_assert_str_eq(c.image, "localhost/web:7");
	ck_assert_str_eq(c.state, "bolt_state.db");
	/* Not a pod's id: none taken. */
	put_bolt(root, "/var/lib/containers/storage/libpod/bolt_state.db",
		 (struct bm_elem[]) { nest(b1, "ctr", nest(b2, ID2, (struct bm_elem) { 0, "pod-id", "../x", 4, 0 })) }, 1);
	read_path(root, "/libpod_parent/libpod-" ID2, &c);
	ck_assert_str_eq(c.pod, "");

	/* containerd: Any { 1: type_url, 2: value }, lengths as varints (the value's over 127 bytes). */
	any[n++] = 0x0a, any[n++] = (unsigned char)strlen(type);
	memcpy(any + n, type, strlen(type)), n += strlen(type);
	any[n++] = 0x12;
	any[n++] = (unsigned char)(0x80 | (strlen(meta) & 0x7f));
	any[n++] = (unsigned char)(strlen(meta) >> 7);
	memcpy(any + n, meta, strlen(meta)), n += strlen(meta);
	put(root, "/run/containerd/io.containerd.runtime.v2.task/k8s.io/" ID2 "/config.json",
	    "{\"annotations\":{\"io.kubernetes.cri.container-name\":\"worker\",\"io.kubernetes.cri.sandbox-id\":\""
	    ID3 "\",\"io.kubernetes.cri.sandbox-name\":\"web-7\"}}");
	put_sandbox_metadata(root, any, n);
	read_path(root, "/kubepods/besteffort/pod3c1f5e9a-2b4d-4e6f-8a0b-1c2d3e4f5a6b/" ID2, &c);
	ck_assert_str_eq(c.runtime, "containerd");
	ck_assert_str_eq(c.pod_name, "web-7");
	ck_assert_str_eq(c.pod_labels, "app=web tier=back");
	/* An Any that is not one gives nothing. */
	any[n - 2 - strlen(meta) - 1] = 0x7f;
	put_sandbox_metadata(root, any, n);
	read_path(root, "/kubepods/besteffort/pod3c1f5e9a-2b4d-4e6f-8a0b-1c2d3e4f5a6b/" ID2, &c);
	ck_assert_str_eq(c.pod_labels, "");

	/* Plain containerd: the container's image, and nerdctl's name for it, from its record; a name with a control
	 * character is no name. */
	put(root, "/run/containerd/io.containerd.runtime.v2.task/default/" ID3 "/config.json", "{\"ociVersion\":\"1\"}");
	put_containerd_record(root, "docker.io/library/web:1", 23, "web", 3);
	read_path(root, "/default/" ID3, &c);
	ck_assert_str_eq(c.runtime, "containerd");
	ck_assert_str_eq(c.image, "docker.io/library/web:1");
	ck_assert_str_eq(c.name, "web");
	put_containerd_record(root, "web\033[2J", 8, "w\0b", 3);
	read_path(root, "/default/" ID3, &c);
	ck_assert_str_eq(c.image, "");
	ck_assert_str_eq(c.name, "");
	unit_rmtree(root);
}
END_TEST

/* podman 5's tables as its libpod/sqlite_state.go makes them (the columns read here, and the rest of a row). */
static const char podman_schema[] =
	"PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;"
	"CREATE TABLE DBConfig(ID INTEGER PRIMARY KEY NOT NULL, SchemaVersion INTEGER NOT NULL, OS TEXT NOT NULL,"
	" StaticDir TEXT NOT NULL, TmpDir TEXT NOT NULL, GraphRoot TEXT NOT NULL, RunRoot TEXT NOT NULL,"
	" GraphDriver TEXT NOT NULL, VolumeDir TEXT NOT NULL, CHECK (ID IN (1)));"
	"CREATE TABLE ContainerConfig(ID TEXT PRIMARY KEY NOT NULL, Name TEXT UNIQUE NOT NULL, PodID TEXT,"
	" JSON TEXT NOT NULL);"
	"CREATE TABLE PodConfig(ID TEXT PRIMARY KEY NOT NULL, Name TEXT UNIQUE NOT NULL, JSON TEXT NOT NULL);"
	"INSERT INTO DBConfig VALUES (1, 1, 'linux', '/var/lib/containers/storage/libpod', '/run/libpod',"
	" '/var/lib/containers/storage', '/run/containers/storage', 'overlay', '/var/lib/containers/storage/volumes');";

/* Runs text on db, which must take it. */
static void sql(sqlite3 *db, const char *text)
{
	char *err = NULL;

	if (sqlite3_exec(db, text, NULL, NULL, &err) != SQLITE_OK)
		ck_abort_msg("%s: %s", text, err);
}

/* The milliseconds one runtime_read() of path takes. */
static long timed_read(const char *root, const char *path, struct container *c)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	read_path(root, path, c);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

/* Whether s begins with prefix, said where it does not. */
static void starts(const char *s, const char *prefix)
{
	ck_assert_msg(strncmp(s, prefix, strlen(prefix)) == 0, "'%s' is not '%s...'", s, prefix);
}

/*
 * podman 5's database (SQLite in WAL mode, podmandb.c): the pod of a container without a slice of its own named from
 * the container's row; a pod committed a moment ago (in the WAL, not checkpointed) seen while podman holds a write
 * transaction open; a database held locked, a link, a FIFO, a file that is no database, another user's file: each
 * says why in CORESINK_POD_FROM, within its bound, and nothing is made up.
 */
START_TEST(test_podman_sqlite)
{
	static const char worker[] = "/machine.slice/libpod-" ID2 ".scope";
	char root[256], path[PATH_MAX], text[PATH_MAX + 8];
	struct container c;
	struct stat st;
	sqlite3 *w = NULL, *x = NULL;
	long ms;
	int fd;

	unit_tmpdir(root, sizeof(root));
	put(root, "/var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" ID2 "\",\"names\":[\"web-9-worker\"]}]");
	(void) snprintf(path, sizeof(path), "%s/var/lib/containers/storage/db.sql", root);
	ck_assert_int_eq(sqlite3_open(path, &w), SQLITE_OK);
	sql(w, podman_schema);
	sql(w, "INSERT INTO ContainerConfig VALUES ('" ID2 "', 'web-9-db', '" ID64 "', '{\"pod\":\"" ID64 "\","
	       "\"rootfsImageName\":\"localhost/web:9\","
	       "\"labels\":{\"team\":\"pay\",\"io.containerd.x\":\"y\",\"bad\":\"a b\"},\"spec\":{\"x\":1}}');"
	       "INSERT INTO PodConfig VALUES ('" ID64 "', 'web-9', '{\"name\":\"web-9\",\"labels\":{\"app\":\"web\","
	       "\"tier\":\"front\",\"bad label\":\"x\"}}');");
	/*
	 * podman writing meanwhile: its transaction open and unseen, the committed pod read all the same (a reader
	 * held by the writer would say "locked by podman" after its bound instead).
	 */
	sql(w, "BEGIN IMMEDIATE; INSERT INTO PodConfig VALUES ('" ID3 "', 'half', '{}');");
	read_path(root, worker, &c);
	ck_assert_str_eq(c.runtime, "podman");
	/* Named by the database (its Name column), not by containers.json. */
	assert_named(&c, (struct named) { .name = "web-9-db", .image = "localhost/web:9", .state = "db.sql",
					  .pod = ID64, .pod_name = "web-9",
					  .pod_labels = "app=web tier=front", .labels = "team=pay",
					  .pod_from = "db.sql" });
	sql(w, "ROLLBACK;");
	/* All of it was in the WAL, never checkpointed into the main file. */
	(void) snprintf(text, sizeof(text), "%s-wal", path);
	ck_assert_int_eq(stat(text, &st), 0);
	ck_assert_int_gt(st.st_size, 0);
	/* A container in no pod: nothing of a pod said, its own labels all the same. */
	sql(w, "UPDATE ContainerConfig SET PodID = NULL;");
	read_path(root, worker, &c);
	ck_assert_str_eq(c.pod, "");
	ck_assert_str_eq(c.pod_name, "");
	ck_assert_str_eq(c.pod_from, "");
	ck_assert_str_eq(c.labels, "team=pay");
	/* A pod's id that is not one is no pod's; the API (not listening here) is asked, and said after why. */
	sql(w, "UPDATE ContainerConfig SET PodID = '../x';");
	read_path(root, worker, &c);
	ck_assert_str_eq(c.pod_name, "");
	starts(c.pod_from, "db.sql: not podman's database; ");
	sql(w, "UPDATE ContainerConfig SET PodID = '" ID64 "';");

	/* Held locked (a database in rollback mode under a writer's exclusive lock): no answer past the bound. */
	sql(w, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;");
	ck_assert_int_eq(sqlite3_open(path, &x), SQLITE_OK);
	sql(x, "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE PodConfig SET Name = 'web-9b';");
	ms = timed_read(root, worker, &c);
	ck_assert_str_eq(c.pod_name, "");
	starts(c.pod_from, "db.sql: locked by podman; ");
	/* The container named all the same, by containers/storage's record. */
	ck_assert_str_eq(c.name, "web-9-worker");
	ck_assert_str_eq(c.state, "containers.json");
	/* It waited for podman's lock its bound (100 ms), and no longer than a slow machine takes past it. */
	ck_assert_msg(ms >= 90 && ms < 10000, "%ld ms held locked", ms);
	sql(x, "ROLLBACK;");
	ck_assert_int_eq(sqlite3_close(x), SQLITE_OK);
	ck_assert_int_eq(sqlite3_close(w), SQLITE_OK);
	read_path(root, worker, &c);
	ck_assert_str_eq(c.pod_name, "web-9");

	/* Another user's file, a link to the real one, a FIFO, bytes that are no database: refused and said. */
	ck_assert_int_eq(chown(path, 1, 1), 0);
	read_path(root, worker, &c);
	ck_assert_str_eq(c.pod_name, "");
	starts(c.pod_from, "db.sql: not a file of root's; ");
	ck_assert_int_eq(chown(path, 0, 0), 0);
	(void) snprintf(text, sizeof(text), "%s.real", path);
	ck_assert_int_eq(rename(path, text), 0);
	ck_assert_int_eq(symlink(text, path), 0);
	read_path(root, worker, &c);
	ck_assert_str_eq(c.pod_name, "");
	starts(c.pod_from, "db.sql: not a file of root's; ");
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ms = timed_read(root, worker, &c);
	ck_assert_str_eq(c.pod_name, "");
	starts(c.pod_from, "db.sql: not a file of root's; ");
	/* Never opened to wait on (a FIFO's open would wait for ever for a writer). */
	ck_assert_int_lt(ms, 10000);
	ck_assert_int_eq(unlink(path), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "SQLite format 3\0garbage, not a page of a database at all", 57), 57);
	ck_assert_int_eq(close(fd), 0);
	read_path(root, worker, &c);
	ck_assert_str_eq(c.pod_name, "");
	starts(c.pod_from, "db.sql: not podman's database; ");
	unit_rmtree(root);
}
END_TEST

/*
 * podman 5's database where socket mode's server reads it: /var read-only to it (ProtectSystem=strict), so SQLite
 * cannot make the -shm a WAL reader needs. With no -wal (podman checkpointed all when it closed) the file alone is
 * read; with podman's -wal and -shm there (a podman running), the WAL is read through a read-only -shm.
 */
START_TEST(test_podman_sqlite_readonly)
{
	static const char worker[] = "/machine.slice/libpod-" ID2 ".scope";
	char root[256], dir[PATH_MAX - 16], path[PATH_MAX], side[PATH_MAX + 8], byte;
	struct container c;
	sqlite3 *w = NULL;
	int ready[2], done[2], status;
	pid_t podman;

	unit_tmpdir(root, sizeof(root));
	put(root, "/var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" ID2 "\",\"names\":[\"web-9-worker\"]}]");
	(void) snprintf(dir, sizeof(dir), "%s/var/lib/containers/storage", root);
	(void) snprintf(path, sizeof(path), "%s/db.sql", dir);
	ck_assert_int_eq(sqlite3_open(path, &w), SQLITE_OK);
	sql(w, podman_schema);
	sql(w, "INSERT INTO ContainerConfig VALUES ('" ID2 "', 'web-9-worker', '" ID64 "', '{}');"
	       "INSERT INTO PodConfig VALUES ('" ID64 "', 'web-9', '{\"name\":\"web-9\"}');");
	ck_assert_int_eq(sqlite3_close(w), SQLITE_OK);
	(void) snprintf(side, sizeof(side), "%s-wal", path);
	ck_assert_int_ne(access(side, F_OK), 0);
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_int_eq(mount(dir, dir, "none", MS_BIND, NULL), 0);
	ck_assert_int_eq(mount("none", dir, "none", MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), 0);
	read_path(root, worker, &c);
	ck_assert_str_eq(c.pod_name, "web-9");
	ck_assert_str_eq(c.pod_from, "db.sql");
	ck_assert_int_eq(umount(dir), 0);
	/* podman at work in a process of its own: its WAL and -shm there, a pod renamed only in the WAL. */
	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(done), 0);
	podman = fork();
	ck_assert_int_ge(podman, 0);
	if (podman == 0) {
		byte = 0;

		if (sqlite3_open(path, &w) != SQLITE_OK ||
		    sqlite3_exec(w, "PRAGMA wal_autocheckpoint=0; UPDATE PodConfig SET Name = 'web-10';", NULL, NULL,
				 NULL) != SQLITE_OK || write(ready[1], "x", 1) != 1)
			_exit(1);
		(void) read(done[0], &byte, 1);
		_exit(sqlite3_close(w) == SQLITE_OK ? 0 : 1);
	}
	ck_assert_int_eq(read(ready[0], &byte, 1), 1);
	(void) snprintf(side, sizeof(side), "%s-shm", path);
	ck_assert_int_eq(access(side, F_OK), 0);
	ck_assert_int_eq(mount(dir, dir, "none", MS_BIND, NULL), 0);
	ck_assert_int_eq(mount("none", dir, "none", MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), 0);
	read_path(root, worker, &c);
	ck_assert_str_eq(c.pod_name, "web-10");
	ck_assert_str_eq(c.pod_from, "db.sql");
	ck_assert_int_eq(umount(dir), 0);
	ck_assert_int_eq(write(done[1], "x", 1), 1);
	ck_assert_int_eq(waitpid(podman, &status, 0), podman);
	ck_assert_int_eq(status, 0);
	unit_rmtree(root);
}
END_TEST

/* Reads what runtime_user_write() says of c (a user's podman beneath home) back into a fresh d, as the handler does. */
static int user_round_trip(const struct container *c, const char *home, struct container *d)
{
	char text[8192];
	int p[2], r;
	ssize_t n;

	ck_assert_int_eq(pipe(p), 0);
	r = runtime_user_write(p[1], c, home);
	(void) close(p[1]);
	n = read(p[0], text, sizeof(text));
	(void) close(p[0]);
	*d = *c;
	if (r == 0)
		runtime_user_take(d, text, n > 0 ? (size_t)n : 0);
	return r;
}

/*
 * A container in a user's slice (rootless podman): never named by root's files, whatever its scope's name (a user
 * names their own cgroups: a scope named after root's container is theirs); named by the user's own podman (its
 * database beneath their home, owned by them), and what that says checked as any name is.
 */
START_TEST(test_rootless)
{
	static const char user[] = "/user.slice/user-4242.slice/user@4242.service/user.slice/libpod-" ID2 ".scope";
	char root[256], home[PATH_MAX - 64], path[PATH_MAX], link[PATH_MAX];
	struct container c, d;
	sqlite3 *w = NULL;

	unit_tmpdir(root, sizeof(root));
	/* Root's podman has a container of that id: its name is not the user's process's. */
	put(root, "/var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" ID2 "\",\"names\":[\"roots-web\"]}]");
	read_path(root, user, &c);
	ck_assert_uint_eq(c.owner, 4242);
	ck_assert_str_eq(c.id, ID2);
	ck_assert_str_eq(c.runtime, "podman");
	ck_assert_str_eq(c.name, "");
	ck_assert_str_eq(c.state, "none: uid 4242's own (rootless)");
	/* A session's scope is no container; a slice's name is no containerd namespace. */
	read_path(root, "/user.slice/user-4242.slice/session-3.scope", &c);
	ck_assert_str_eq(c.id, "");
	read_path(root, "/system.slice/docker-" ID3 ".scope", &c);
	ck_assert_uint_eq(c.owner, 0);

	/* The user's podman 5: db.sql of theirs, beneath their home. */
	(void) snprintf(home, sizeof(home), "%s/home/u", root);
	put(root, "/home/u/.local/share/containers/storage/db.sql", "");
	(void) snprintf(path, sizeof(path), "%s/.local/share/containers/storage/db.sql", home);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(sqlite3_open(path, &w), SQLITE_OK);
	sql(w, podman_schema);
	sql(w, "INSERT INTO ContainerConfig VALUES ('" ID2 "', 'my-web', '" ID64 "', '{\"rootfsImageName\":"
	       "\"localhost/mine:1\",\"labels\":{\"team\":\"me\"}}');"
	       "INSERT INTO PodConfig VALUES ('" ID64 "', 'my-pod', '{\"labels\":{\"app\":\"mine\"}}');"
	       "PRAGMA wal_checkpoint(TRUNCATE);");
	ck_assert_int_eq(sqlite3_close(w), SQLITE_OK);
	read_path(root, user, &c);
	/*
	 * Not the user's file (root's, in their home), a link, a FIFO: not their podman's word (checked before the
	 * sandbox, runtime_user_files(), never opened).
	 */
	ck_assert_int_eq(runtime_user_files(&c, home), -EPERM);
	ck_assert_int_eq(chown(path, 4242, 4242), 0);
	ck_assert_int_eq(runtime_user_files(&c, home), 0);
	(void) snprintf(link, sizeof(link), "%s/.local/share/containers/storage/libpod", home);
	ck_assert_int_eq(mkdir(link, 0755), 0);
	(void) snprintf(link, sizeof(link), "%s/.local/share/containers/storage/libpod/bolt_state.db", home);
	ck_assert_int_eq(mkfifo(link, 0600), 0);
	ck_assert_int_eq(lchown(link, 4242, 4242), 0);
	ck_assert_int_eq(runtime_user_files(&c, home), -EPERM);
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(lchown(link, 4242, 4242), 0);
	ck_assert_int_eq(runtime_user_files(&c, home), -EPERM);
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(user_round_trip(&c, home, &d), 0);
	assert_named(&d, (struct named) { .name = "my-web", .image = "localhost/mine:1", .labels = "team=me",
					  .pod = ID64, .pod_name = "my-pod", .pod_labels = "app=mine",
					  .state = "rootless db.sql", .pod_from = "rootless db.sql" });

	/* What a child made to lie (its SQLite attacked) could write: each value checked, none taken on its word. */
	static const char lies[] = "name web\033[2J\npod ../../x\npod_name p\nlabels a=b bad!=c d=e=f g=h\n"
				    "pod_labels x=y\001\nimage \xc0\xaf\nfrom db.sql\nunknown x\nname";

	d = c;
	runtime_user_take(&d, lies, sizeof(lies) - 1);
	ck_assert_str_eq(d.name, "");
	ck_assert_str_eq(d.image, "");
	ck_assert_str_eq(d.pod, "");
	/* No pod's id, so no pod's name: a name without its pod names nothing. */
	ck_assert_str_eq(d.pod_name, "");
	ck_assert_str_eq(d.labels, "a=b g=h");
	ck_assert_str_eq(d.pod_labels, "");
	ck_assert_str_eq(d.state, "rootless db.sql");
	/* A pod the cgroup named is not replaced by another the child says. */
	d = c;
	memcpy(d.pod, ID3, sizeof(ID3));
	runtime_user_take(&d, "pod " ID64 "\npod_name other\n", strlen("pod " ID64 "\npod_name other\n"));
	ck_assert_str_eq(d.pod, ID3);
	unit_rmtree(root);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("runtime");
	TCase *tc = tcase_create("runtime");

	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_runtimes);
	tcase_add_test(tc, test_runtime_refuses);
	tcase_add_test(tc, test_pod_labels);
	tcase_add_test(tc, test_podman_api);
	tcase_add_test(tc, test_pod_databases);
	tcase_add_test(tc, test_podman_sqlite);
	tcase_add_test(tc, test_podman_sqlite_readonly);
	tcase_add_test(tc, test_containerd_elsewhere);
	tcase_add_test(tc, test_rootless);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
