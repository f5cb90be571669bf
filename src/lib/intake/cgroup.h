/* cgroup.h: the systemd units a cgroup path names. */
#ifndef CORESINK_CGROUP_H
#define CORESINK_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

#define UNIT_NAME_MAX 256

struct units {
	char unit[UNIT_NAME_MAX];       /* system unit: foo.service, or user@1000.service for a user's processes */
	char user_unit[UNIT_NAME_MAX];  /* the unit inside the user's manager */
	char slice[UNIT_NAME_MAX];
	uid_t owner_uid;                /* from user-UID.slice or user@UID.service; (uid_t)-1 when none */
};

/* The container a cgroup path names: a systemd machine (systemd-nspawn, machinectl), or a runtime's container. */
struct container {
	char machine[UNIT_NAME_MAX];    /* from machine-NAME.scope, unescaped */
	char runtime[16];               /* docker, podman, containerd, cri-o; "" when none */
	char id[80];                    /* the runtime's container id (hex) */
};

void cgroup_units(const char *path, struct units *u);
void cgroup_container(const char *path, struct container *c);
const char *cgroup_path(const char *proc_cgroup);

#endif
