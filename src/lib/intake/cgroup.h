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

/*
 * The container a cgroup path names: a systemd machine (systemd-nspawn, machinectl), or a runtime's container and
 * the pod it is in; then what the runtime's own files say of it (runtime_read(): intake/runtime.c).
 */
struct container {
	char machine[UNIT_NAME_MAX];    /* from machine-NAME.scope, unescaped */
	char runtime[16];               /* docker, podman, containerd, cri-o; "" when none or not known */
	char id[80];                    /* the runtime's container id (hex; plain containerd's: any identifier) */
	char pod[80];                   /* the pod the path names: a Kubernetes pod's UID, or a podman pod's id */
	bool kube;                      /* pod is a Kubernetes pod's UID (a kubepods cgroup, a CRI bundle) */
	char ns[64];                    /* plain containerd's namespace, from a cgroupfs path /NS/ID */
	uid_t owner;                    /* 0: the host's; else the user in whose slice it lies (user-UID.slice,
					   user@UID.service: a rootless container, whose names are its user's word) */
	/* From the runtime's state files, "" where they say nothing: */
	char name[UNIT_NAME_MAX], image[UNIT_NAME_MAX];
	char pod_name[UNIT_NAME_MAX], pod_namespace[UNIT_NAME_MAX];
	char pod_labels[1024];          /* the pod's labels, "KEY=VALUE" words one blank apart (labels.c) */
	char labels[1024];              /* the container's own labels, likewise */
	char state[64];                 /* which file said it, or why none did */
	char pod_from[96];              /* where a podman pod's name came from, or why it did not */
};

void cgroup_units(const char *path, struct units *u);
void cgroup_container(const char *path, struct container *c);
const char *cgroup_path(const char *proc_cgroup);
bool cgroup_hex_id(const char *s, size_t n);

#endif
