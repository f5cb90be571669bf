/*
 * rootless.c: a container in a user's own slice (rootless podman) named by that user's podman. Its files are in the
 * user's home and are the user's to make: a link to a FIFO would hang root's handler, a database made to attack
 * SQLite would run in root's. So they are read in the sandbox, as that user (who may read them anyway), with a
 * deadline and bounded memory, and what comes back is checked as any name is (runtime_user_take()). The databases
 * must be regular files of the user's (runtime_user_files(), here: in the sandbox's user namespace every owner reads
 * as the overflow id). libsqlite3 is loaded here first: the sandbox's seccomp filter maps nothing executable.
 */
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "capture-internal.h"

/*
 * What the user's own crash's release may wait for its name: 8-14 ms here, but the sandbox's start (namespaces, the
 * fork of the handler) is the slow part, and under emulation (the VM tier's TCG) it took more than 250 ms. Only
 * that user's crash waits; a user who makes it wait delays their own process.
 */
#define ROOTLESS_MS 2000
#define ROOTLESS_DATA (64ULL << 20)      /* SQLite's heap is bounded at 4 MiB (podmandb.c), BoltDB's pages at 16 */
#define ROOTLESS_AS (1ULL << 30)
#define ROOTLESS_OUTPUT 8192

struct user_arg {
	const struct container *c;
	const char *home;
};

/* In the child, as the user. */
static int user_read(int fd, int out, void *arg)
{
	const struct user_arg *a = arg;

	(void) fd;
	return runtime_user_write(out, a->c, a->home) < 0 ? 1 : 0;
}

/* c, a container in a user's slice that names podman (or no runtime), named by that user's podman, where it says. */
void crash_rootless(struct container *c)
{
	struct passwd pw, *p = NULL;
	char buf[4096], why[32];
	struct sandbox_result res = { 0 };
	struct sandbox_limits l = { .data = ROOTLESS_DATA, .address_space = ROOTLESS_AS, .cpu_seconds = 1,
				    .timeout_ms = ROOTLESS_MS, .output_max = ROOTLESS_OUTPUT, .root_fd = -1 };

	if (c->owner == 0 || !c->id[0] || (c->runtime[0] && strcmp(c->runtime, "podman") != 0))
		return;
	if (getpwuid_r(c->owner, &pw, buf, sizeof(buf), &p) != 0 || !p || p->pw_dir[0] != '/') {
		(void) snprintf(c->state, sizeof(c->state), "none: uid %u has no home", (unsigned)c->owner);
		return;
	}
	if (runtime_user_files(c, p->pw_dir) < 0) {
		(void) snprintf(c->state, sizeof(c->state), "none: uid %u's podman: not files of theirs",
				(unsigned)c->owner);
		return;
	}
	l.uid = p->pw_uid, l.gid = p->pw_gid;
	/* Where it is not installed, a podman 5 database says nothing; podman 4's BoltDB needs no library. */
	(void) podman_db_load();
	if (sandbox_run(&l, -1, user_read, &(struct user_arg) { c, p->pw_dir }, &res) < 0) {
		(void) snprintf(c->state, sizeof(c->state), "none: uid %u's podman: not read", (unsigned)c->owner);
		return;
	}
	if (res.end == SANDBOX_DONE) {
		runtime_user_take(c, res.out, res.len);
	} else {
		sandbox_ending(&res, why, sizeof(why));
		(void) snprintf(c->state, sizeof(c->state), "none: uid %u's podman: %s", (unsigned)c->owner,
				res.end == SANDBOX_FAILED && res.code == 1 ? "no record of it" : why);
	}
	sandbox_result_free(&res);
}
