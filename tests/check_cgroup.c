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

/* Which container a path names: a systemd machine, or a runtime's container by either cgroup driver. */
static const struct {
	const char *path, *machine, *runtime, *id;
} containers[] = {
	{ "/machine.slice/machine-web.scope/payload/system.slice/nginx.service", "web", "", "" },
	{ "/machine.slice/machine-my\\x2dbox.scope/payload", "my-box", "", "" },
	{ "/system.slice/docker-" ID64 ".scope", "", "docker", ID64 },
	{ "/docker/" ID64, "", "docker", ID64 },
	{ "/machine.slice/libpod-" ID64 ".scope/container", "", "podman", ID64 },
	{ "/libpod_parent/" ID64, "", "podman", ID64 },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-" ID64 ".scope", "",
	  "containerd", ID64 },
	{ "/kubepods.slice/crio-" ID64 ".scope", "", "cri-o", ID64 },
	/* Not ids: too short, upper case, not hex; a docker.service is the daemon, not a container. */
	{ "/docker/0123abcd", "", "", "" },
	{ "/docker/4F1C6E0B3A2D9E8F", "", "", "" },
	{ "/system.slice/docker-nothex0123456.scope", "", "", "" },
	{ "/system.slice/docker.service", "", "", "" },
	{ "/machine-.scope", "", "", "" },
	{ "/system.slice/foo.service", "", "", "" },
	{ "", "", "", "" },
};

START_TEST(test_containers)
{
	struct container c;

	cgroup_container(containers[_i].path, &c);
	ck_assert_str_eq(c.machine, containers[_i].machine);
	ck_assert_str_eq(c.runtime, containers[_i].runtime);
	ck_assert_str_eq(c.id, containers[_i].id);
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
