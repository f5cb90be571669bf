/*
 * kargs.c: the arguments the kernel expands from kernel.core_pattern. They describe a process that may be hostile
 * (comm and hostname are its choice), so numbers are parsed strictly and a bad one is reported, not trusted.
 */
#include <errno.h>
#include <string.h>

#include "base.h"
#include "kargs.h"

/*
 * Each numeric slot: its specifier, its largest valid value, and what it keeps when it cannot be read: unknown
 * ids and thread, unlimited rlimit, no pidfd, and a root-only dump mode. Strings (%h, %e) default to "".
 */
static const struct slot {
	const char *spec;
	uint64_t max;
	uint64_t fallback;
} slots[_KARGS_MAX] = {
	[KARG_PID] = { "%P", INT32_MAX, 0 },
	[KARG_UID] = { "%u", UINT32_MAX - 1, UINT32_MAX },
	[KARG_GID] = { "%g", UINT32_MAX - 1, UINT32_MAX },
	[KARG_SIGNAL] = { "%s", 64, 0 },
	[KARG_TIME] = { "%t", UINT64_MAX, 0 },
	[KARG_RLIMIT] = { "%c", UINT64_MAX, UINT64_MAX },
	[KARG_HOSTNAME] = { "%h", 0, 0 },
	[KARG_COMM] = { "%e", 0, 0 },
	[KARG_DUMPMODE] = { "%d", SUID_DUMP_ROOT, SUID_DUMP_ROOT },
	[KARG_PIDFD] = { "%F", INT32_MAX, (uint64_t)-1 },
	[KARG_TID] = { "%I", INT32_MAX, 0 },
};

static bool is_string(enum karg i)
{
	return i == KARG_HOSTNAME || i == KARG_COMM;
}

/*
 * Reads slot i of argv into v[i]. An optional slot may be absent or empty; anything else that is not a number in
 * range is reported. 0 or -EINVAL.
 */
static int number(int argc, char *const *argv, enum karg i, uint64_t *v, struct diag *d)
{
	uint64_t n;

	v[i] = slots[i].fallback;
	if (is_string(i) || (i >= _KARGS_REQUIRED && ((int)i >= argc || argv[i][0] == '\0')))
		return 0;
	if (parse_u64(argv[i], &n) < 0 || n > slots[i].max) {
		diag_add(d, "kernel argument %s is not a valid number: '%.32s'", slots[i].spec, argv[i]);
		return -EINVAL;
	}
	v[i] = n;
	return 0;
}

static void fill(struct kargs *k, const uint64_t *v, char *const *argv)
{
	*k = (struct kargs) {
		.pid = (pid_t)v[KARG_PID],
		.uid = (uid_t)v[KARG_UID],
		.gid = (gid_t)v[KARG_GID],
		.signal = (int)v[KARG_SIGNAL],
		.time = v[KARG_TIME],
		.rlimit = v[KARG_RLIMIT],
		.hostname = argv ? argv[KARG_HOSTNAME] : "",
		.comm = argv ? argv[KARG_COMM] : "",
		.dumpmode = (enum suid_dump)v[KARG_DUMPMODE],
		.pidfd = (int)(int64_t)v[KARG_PIDFD],
		.tid = (pid_t)v[KARG_TID],
	};
}

/*
 * Parses argv[0..argc) as KARGS_SPECIFIERS. Every field that cannot be read keeps its fallback; returns 0, or
 * -EINVAL when anything was wrong (reported in d).
 */
int kargs_parse(int argc, char *const *argv, struct kargs *k, struct diag *d)
{
	uint64_t v[_KARGS_MAX];
	int bad = 0;

	if (argc < _KARGS_REQUIRED || argc > _KARGS_MAX) {
		for (int i = 0; i < _KARGS_MAX; i++)
			v[i] = slots[i].fallback;
		fill(k, v, NULL);
		diag_add(d, "expected %d kernel arguments (%s), got %d", _KARGS_MAX, KARGS_SPECIFIERS, argc);
		return -EINVAL;
	}
	for (int i = 0; i < _KARGS_MAX; i++)
		if (number(argc, argv, (enum karg)i, v, d) < 0)
			bad = 1;
	fill(k, v, argv);
	/* Arguments that do not parse describe a process we cannot be sure of: its core is for root only. */
	if (bad)
		k->dumpmode = SUID_DUMP_ROOT;
	return bad ? -EINVAL : 0;
}

/*
 * Whether a path can stand in kernel.core_pattern, which the kernel splits at blanks and expands at %: no blank,
 * no specifier, no pipe.
 */
bool kargs_pattern_safe(const char *path)
{
	return strpbrk(path, " \t\n%|") == NULL;
}
