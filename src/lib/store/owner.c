/*
 * owner.c: gives the crashing user read access to their own core with a POSIX ACL entry (user:UID:r--), as
 * systemd-coredump does, so that coredumpctl debug works without sudo. The file stays root's and its mode stays
 * FileMode=; whether granting is safe is the caller's decision (flow/keep.c: dump mode 1, credentials unchanged).
 */
#include <acl/libacl.h>
#include <errno.h>
#include <sys/acl.h>

#include "owner.h"

/* Adds user:uid:r-- to fd's access ACL, with the mask recomputed. 0 or -errno (EOPNOTSUPP: no ACLs here). */
int owner_grant(int fd, uid_t uid)
{
	acl_t acl = acl_get_fd(fd);
	acl_entry_t e;
	acl_permset_t perms;
	int r = 0;

	if (!acl)
		return -errno;
	if (acl_create_entry(&acl, &e) < 0 || acl_set_tag_type(e, ACL_USER) < 0 || acl_set_qualifier(e, &uid) < 0 ||
	    acl_get_permset(e, &perms) < 0 || acl_clear_perms(perms) < 0 || acl_add_perm(perms, ACL_READ) < 0 ||
	    acl_calc_mask(&acl) < 0 || acl_set_fd(fd, acl) < 0)
		r = -errno;
	(void) acl_free(acl);
	return r;
}
