/*
 * kargs.c: the arguments the kernel expands from kernel.core_pattern. They describe a process that may be hostile
 * (comm and hostname are its choice), so numbers are parsed strictly and a bad one is reported, not trusted.
 */
#include <errno.h>
#include <string.h>

#include "kargs.h"
#include "parse.h"

static int number(const char *s, const char *what, uint64_t max, uint64_t *ret, struct diag *d)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0 || v > max) {
		diag_add(d, "kernel argument %s is not a valid number: '%.32s'", what, s);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static void defaults(struct kargs *k)
{
	*k = (struct kargs) {
		.uid = (uid_t)-1,
		.gid = (gid_t)-1,
		.rlimit = UINT64_MAX,
		.hostname = "",
		.comm = "",
		/* Unknown dump mode: assume the strictest, so the core is root only. */
		.dumpmode = 2,
		.pidfd = -1,
	};
}

/*
 * Parses argv[0..argc) as KARGS_SPECIFIERS. %F may be missing or empty (older kernels). Every field that cannot
 * be read keeps a safe default; returns 0, or -EINVAL when anything was wrong (reported in d).
 */
int kargs_parse(int argc, char *const *argv, struct kargs *k, struct diag *d)
{
	/* A field that fails to parse keeps these: unknown ids, unlimited rlimit, root-only dump mode. */
	uint64_t v[KARGS_COUNT] = { [1] = UINT32_MAX, [2] = UINT32_MAX, [5] = UINT64_MAX, [8] = 2 };
	int bad = 0;
	static const struct { int idx; const char *name; uint64_t max; } nums[] = {
		{ 0, "%P", INT32_MAX }, { 1, "%u", UINT32_MAX - 1 }, { 2, "%g", UINT32_MAX - 1 },
		{ 3, "%s", 64 }, { 4, "%t", UINT64_MAX }, { 5, "%c", UINT64_MAX }, { 8, "%d", 2 },
	};

	defaults(k);
	if (argc < KARGS_COUNT - 1 || argc > KARGS_COUNT) {
		diag_add(d, "expected %d kernel arguments (%s), got %d", KARGS_COUNT, KARGS_SPECIFIERS, argc);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (number(argv[nums[i].idx], nums[i].name, nums[i].max, &v[nums[i].idx], d) < 0)
			bad = 1;
	k->pid = (pid_t)v[0];
	k->uid = (uid_t)v[1];
	k->gid = (gid_t)v[2];
	k->signal = (int)v[3];
	k->time = v[4];
	k->rlimit = v[5];
	k->hostname = argv[6];
	k->comm = argv[7];
	k->dumpmode = (int)v[8];
	if (argc == KARGS_COUNT && argv[9][0] != '\0') {
		if (number(argv[9], "%F", INT32_MAX, &v[9], d) < 0)
			bad = 1;
		else
			k->pidfd = (int)v[9];
	}
	/* Arguments that do not parse describe a process we cannot be sure of: its core is for root only. */
	if (bad)
		k->dumpmode = 2;
	return bad ? -EINVAL : 0;
}
