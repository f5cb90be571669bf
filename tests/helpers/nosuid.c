/*
 * nosuid: runs a command under the seccomp filter systemd loads for RestrictSUIDSGID= (coresink.service sets it),
 * rule for rule as src/shared/seccomp-util.c's seccomp_restrict_sxid() adds them: a mode with the set-user-ID or
 * set-group-ID bit refused to chmod, fchmod, fchmodat, mkdir, mkdirat, mknod, mknodat, creat and to open and openat
 * with O_CREAT, and openat2() refused whatever it is asked, since a filter cannot see the flags in its struct.
 * The end-to-end tests run socket mode's server under it where they run it without its unit (t-netdoor).
 * usage: nosuid COMMAND [ARG]...
 */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* The rules for one bit: EPERM where the mode argument (index arg, or A2/A3 for open's) has it. */
static int refuse_bit(scmp_filter_ctx f, mode_t m)
{
	int r = 0;

	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(chmod), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, m, m));
	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(fchmod), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, m, m));
	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(fchmodat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, m, m));
	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mkdir), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, m, m));
	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mkdirat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, m, m));
	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknod), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, m, m));
	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknodat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, m, m));
	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(open), 2, SCMP_A1(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT),
			      SCMP_A2(SCMP_CMP_MASKED_EQ, m, m));
	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat), 2,
			      SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT), SCMP_A3(SCMP_CMP_MASKED_EQ, m, m));
	r |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(creat), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, m, m));
	return r;
}

int main(int argc, char **argv)
{
	scmp_filter_ctx f;

	if (argc < 2) {
		fprintf(stderr, "usage: nosuid COMMAND [ARG]...\n");
		return 100;
	}
	f = seccomp_init(SCMP_ACT_ALLOW);
	if (!f || refuse_bit(f, S_ISUID) || refuse_bit(f, S_ISGID) ||
	    seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat2), 0) || seccomp_load(f)) {
		fprintf(stderr, "nosuid: the filter could not be loaded\n");
		return 100;
	}
	seccomp_release(f);
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
