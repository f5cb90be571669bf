/* check_cgroup.c: systemd units from cgroup paths, and the path from /proc/PID/cgroup text. */
#include "intake.h"
#include "unit.h"

static const struct {
	const char *path, *unit, *user_unit, *slice;
	uid_t owner;
} cases[] = {
	{ "/system.slice/nginx.service", "nginx.service", "", "system.slice", (uid_t)-1 },
	{ "/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service", "", "system-getty.slice",
	  (uid_t)-1 },
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-1234.scope",
	  "user@1000.service", "app-firefox-1234.scope", "user-1000.slice", 1000 },
	{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope", "", "user-1000.slice", 1000 },
	{ "/init.scope", "init.scope", "", "", (uid_t)-1 },
	{ "/", "", "", "", (uid_t)-1 },
	{ "/docker/0123abcd", "", "", "", (uid_t)-1 },
	{ "/system.slice/foo.service\n1:name=systemd:/x", "foo.service", "", "system.slice", (uid_t)-1 },
	/* Not a user manager (no uid): the deepest unit is the unit. */
	{ "/user.slice/user-x.slice/user@y.service/a.service", "a.service", "", "user-x.slice", (uid_t)-1 },
	{ "", "", "", "", (uid_t)-1 },
};

START_TEST(test_units)
{
	struct units u;

	cgroup_units(cases[_i].path, &u);
	ck_assert_str_eq(u.unit, cases[_i].unit);
	ck_assert_str_eq(u.user_unit, cases[_i].user_unit);
	ck_assert_str_eq(u.slice, cases[_i].slice);
	ck_assert_uint_eq(u.owner_uid, cases[_i].owner);
}
END_TEST

START_TEST(test_long_names_bounded)
{
	char path[2048];
	struct units u;

	memset(path, 'a', sizeof(path));
	path[0] = '/';
	strcpy(path + sizeof(path) - 9, ".service");
	cgroup_units(path, &u);
	ck_assert_uint_eq(strlen(u.unit), UNIT_NAME_MAX - 1);
}
END_TEST

START_TEST(test_path)
{
	/* Unified only; hybrid with a bare "0::/" (name=systemd wins); v1 only; nothing. */
	ck_assert_str_eq(cgroup_path("0::/system.slice/a.service\n"), "/system.slice/a.service\n");
	ck_assert_str_eq(cgroup_path("9:name=systemd:/system.slice/b.service\n1:cpu:/\n0::/\n"),
			 "/system.slice/b.service\n1:cpu:/\n0::/\n");
	ck_assert_str_eq(cgroup_path("1:name=systemd:/c.scope\n0::/d.scope\n"), "/d.scope\n");
	ck_assert_str_eq(cgroup_path("0::/\n"), "/\n");
	ck_assert_ptr_null(cgroup_path("1:cpu:/\n"));
}
END_TEST

#define ID64 "4f1c6e0b3a2d9e8f7c6b5a4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f"

#define ID2 "72cd1a14bf8249aa8e1e0a2c1f3b5d7e9f0a1b2c3d4e5f60718293a4b5c6d7e8"
#define UID "3c1f5e9a-2b4d-4e6f-8a0b-1c2d3e4f5a6b"
#define UID_ "3c1f5e9a_2b4d_4e6f_8a0b_1c2d3e4f5a6b"

/*
 * Which container a path names (a systemd machine, or a runtime's container by either cgroup driver, v1 and v2
 * alike) and the pod above it. The first from the root wins: what lies beneath is the container's own cgroup, in
 * which it may make any name (a delegated subtree), so a name there never changes whose crash it is.
 */
static const struct {
	const char *path, *machine, *runtime, *id, *pod, *ns;   /* ns: a plain containerd candidate, for its files */
	bool kube;
} containers[] = {
	{ "/machine.slice/machine-web.scope/payload/system.slice/nginx.service", "web", "", "", "", "", false },
	{ "/machine.slice/machine-my\\x2dbox.scope/payload", "my-box", "", "", "", "", false },
	{ "/system.slice/docker-" ID64 ".scope", "", "docker", ID64, "", "", false },
	{ "/docker/" ID64, "", "docker", ID64, "", "", false },
	{ "/machine.slice/libpod-" ID64 ".scope/container", "", "podman", ID64, "", "", false },
	{ "/libpod_parent/libpod-" ID64, "", "podman", ID64, "", "", false },
	/* A podman pod: its id above the container's, by cgroupfs and by systemd. */
	{ "/libpod_parent/" ID2 "/libpod-" ID64, "", "podman", ID64, ID2, "", false },
	{ "/machine.slice/machine-libpod_pod_" ID2 ".slice/libpod-" ID64 ".scope/container", "", "podman", ID64, ID2,
	  "", false },
	{ "/machine.slice/machine-libpod_pod_" ID2 ".slice/libpod-conmon-" ID64 ".scope", "", "", "", ID2, "", false },
	/* Kubernetes: the kubelet's pod UID, by systemd's driver (underscores) and cgroupfs; the runtime by its name. */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" ID64 ".scope",
	  "", "containerd", ID64, UID, "", true },
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID64 ".scope", "", "cri-o", ID64, UID, "", true },
	{ "/kubepods/besteffort/pod" UID "/" ID64, "", "", ID64, UID, "", true },
	{ "/kubepods/pod" UID "/crio-" ID64, "", "cri-o", ID64, UID, "", true },
	{ "/kubepods.slice/crio-" ID64 ".scope", "", "cri-o", ID64, "", "", false },
	/* Plain containerd (ctr): /NAMESPACE/ID, any identifier, a candidate its files confirm (runtime_read). */
	{ "/default/" ID64, "", "", ID64, "", "default", false },
	{ "/default/web-1", "", "", "web-1", "", "default", false },
	/* The container's own cgroups beneath it name nothing: not another id, not a machine. */
	{ "/docker/" ID64 "/docker/" ID2, "", "docker", ID64, "", "", false },
	{ "/system.slice/docker-" ID64 ".scope/machine-x.scope", "", "docker", ID64, "", "", false },
	{ "/libpod_parent/" ID2 "/libpod-" ID64 "/libpod_parent/libpod-" ID2, "", "podman", ID64, ID2, "", false },
	{ "/kubepods/pod" UID "/" ID64 "/kubepods/pod" UID "/" ID2, "", "", ID64, UID, "", true },
	/* Not a runtime's ids: too short, upper case, not hex; a docker.service is the daemon, not a container. At two
	 * levels, each is a candidate for plain containerd until its files are read. */
	{ "/docker/0123abcd", "", "", "0123abcd", "", "docker", false },
	{ "/docker/4F1C6E0B3A2D9E8F", "", "", "4F1C6E0B3A2D9E8F", "", "docker", false },
	/* Beneath a systemd slice, no plain containerd's: a unit is not a task. */
	{ "/system.slice/docker-nothex0123456.scope", "", "", "", "", "", false },
	{ "/system.slice/docker.service", "", "", "", "", "", false },
	{ "/user.slice/user-1000.slice/session-2.scope", "", "", "", "", "", false },
	/* A rootless container: in its user's slice, their manager's scope (and pod slice). */
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID64 ".scope", "", "podman", ID64, "", "",
	  false },
	{ "/docker/.hidden", "", "", "", "", "", false },
	{ "/machine-.scope", "", "", "", "", "", false },
	{ "/a/b/" ID64, "", "", "b", "", "a", false },
	{ "/docker/" ID64 "x", "", "", ID64 "x", "", "docker", false },
	{ "/a/b/c", "", "", "b", "", "a", false },
	/* A pod's UID outside kubepods is no pod. */
	{ "/pod" UID "/" ID64, "", "", ID64, "", "pod" UID, false },
	{ "/user.slice", "", "", "", "", "", false },
	{ "", "", "", "", "", "", false },
};

START_TEST(test_containers)
{
	struct container c;

	cgroup_container(containers[_i].path, &c);
	ck_assert_str_eq(c.machine, containers[_i].machine);
	ck_assert_str_eq(c.runtime, containers[_i].runtime);
	ck_assert_str_eq(c.id, containers[_i].id);
	ck_assert_str_eq(c.pod, containers[_i].pod);
	ck_assert_str_eq(c.ns, containers[_i].ns);
	ck_assert(c.kube == containers[_i].kube);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("cgroup");

	tcase_add_loop_test(tc, test_units, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_long_names_bounded);
	tcase_add_test(tc, test_path);
	tcase_add_loop_test(tc, test_containers, 0, (int)(sizeof(containers) / sizeof(containers[0])));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
