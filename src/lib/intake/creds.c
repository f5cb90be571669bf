/*
 * creds.c: whether a crashed process ran with the credentials it was started with, which decides whether its owner
 * may read its core (systemd-coredump's rule after CVE-2025-4598): its real and effective uid and gid are the same
 * (/proc/PID/status), and the kernel did not start it in secure mode (AT_SECURE is 0 in /proc/PID/auxv: no setuid or
 * setgid bit, no file capabilities). A dump mode of 1 alone is not enough: a process can regain it with
 * prctl(PR_SET_DUMPABLE) after changing credentials. Both are read while the kernel still holds the process. Pure
 * functions of the two texts: anything missing or unreadable means "changed". And which uids are people's: the
 * only ones a core or an entry is ever handed to.
 */
#include <elf.h>
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "creds.h"

/* The "Uid:" or "Gid:" line of status: real, effective, saved, filesystem. Whether real == effective. */
static bool same_ids(const char *status, const char *key)
{
	const char *line = status;
	unsigned long real, effective, saved, fs;
	size_t klen = strlen(key);

	while (line && strncmp(line, key, klen) != 0) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line || sscanf(line + klen, "%lu %lu %lu %lu", &real, &effective, &saved, &fs) != 4)
		return false;
	return real == effective && effective == saved && saved == fs;
}

/* AT_SECURE of a native auxiliary vector; true (secure) when it is absent or the vector is cut. */
static bool secure(const void *auxv, size_t len)
{
	const unsigned char *p = auxv;

	for (size_t off = 0; auxv && off + sizeof(Elf64_auxv_t) <= len; off += sizeof(Elf64_auxv_t)) {
		Elf64_auxv_t a;

		memcpy(&a, p + off, sizeof(a));
		if (a.a_type == AT_NULL)
			break;
		if (a.a_type == AT_SECURE)
			return a.a_un.a_val != 0;
	}
	return true;
}

bool creds_unchanged(const char *status, const void *auxv, size_t auxv_len)
{
	return status && same_ids(status, "Uid:") && same_ids(status, "Gid:") && !secure(auxv, auxv_len);
}

/*
 * Whether uid is a regular user's, one that names the same person for good: not root or a system user (their
 * services' crashes are root's business, and their uids are reused by packages), not a systemd DynamicUser= uid
 * (given to whichever service starts next), not nobody, and not one of the ranges systemd hands to containers'
 * private users (systemd's rule for its coredump ACL, with the container ranges on top).
 */
bool uid_is_regular(uid_t uid)
{
	if (uid <= UID_SYSTEM_MAX)
		return false;
	if (uid >= UID_DYNAMIC_MIN && uid <= UID_DYNAMIC_MAX)
		return false;
	if (uid == UID_NOBODY || uid == UID_16BIT_INVALID)
		return false;
	return uid < UID_CONTAINER_MIN;
}

/*
 * The ids of the system user name, from /etc/passwd itself: no NSS module (LDAP, a network) is ever asked from a
 * handler the kernel runs for a crash. A user with root's ids, or with a regular user's, is not one the install
 * made. 0 or -errno (-ENOENT: no such user, -EPERM: not a system user).
 */
int creds_system_user(const char *name, uid_t *uid, gid_t *gid)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (r == -ENOENT && (pw = fgetpwent(f)))
		if (strcmp(pw->pw_name, name) == 0) {
			*uid = pw->pw_uid;
			*gid = pw->pw_gid;
			r = *uid == 0 || *gid == 0 || uid_is_regular(*uid) ? -EPERM : 0;
		}
	(void) fclose(f);
	return r;
}
