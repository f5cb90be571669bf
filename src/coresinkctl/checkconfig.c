/*
 * checkconfig.c: coresinkctl check-config (coresink --check-config hands over to it). Without operands: the
 * effective configuration as a config file would say it, every rule (a skipped one commented out, with why on stderr). With KEY=VALUE operands that describe a crash
 * (exe=, comm=, unit=, user-unit=, slice=, user=, signal=, container=, hostname=): which rule that crash would get,
 * and the per-crash keys it would be captured with.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "checkconfig.h"
#include "config.h"
#include "admin.h"

/* A user as a name or a number. 0 or -EINVAL. */
static int parse_user(const char *v, uid_t *uid)
{
	struct passwd *pw;
	uint64_t n;

	if (parse_u64(v, &n) == 0 && n < UINT32_MAX) {
		*uid = (uid_t)n;
		return 0;
	}
	pw = getpwnam(v);
	if (!pw)
		return -EINVAL;
	*uid = pw->pw_uid;
	return 0;
}

/* One KEY=VALUE operand into the facts. 0 or -EINVAL. */
static int fact(char *arg, struct rule_facts *f)
{
	char *v = strchr(arg, '=');

	if (!v)
		return -EINVAL;
	*v++ = '\0';
	if (strcmp(arg, "exe") == 0) f->exe = v;
	else if (strcmp(arg, "comm") == 0) f->comm = v;
	else if (strcmp(arg, "unit") == 0) f->unit = v;
	else if (strcmp(arg, "user-unit") == 0) f->user_unit = v;
	else if (strcmp(arg, "slice") == 0) f->slice = v;
	else if (strcmp(arg, "hostname") == 0) f->hostname = v;
	else if (strcmp(arg, "user") == 0) return parse_user(v, &f->uid);
	else if (strcmp(arg, "signal") == 0) return (f->signal = rule_signal(v)) < 0 ? -EINVAL : 0;
	else if (strcmp(arg, "container") == 0) {
		f->container = true;
		f->machine = f->container_id = strcmp(v, "yes") == 0 ? "" : v;
	} else
		return -EINVAL;
	return 0;
}

/* Which rule the crash the operands describe gets, and what it is captured with. */
static int which_rule(struct config *c, int argc, char **argv)
{
	struct rule_facts f = { .uid = 0 };
	int i;

	for (int a = 0; a < argc; a++)
		if (fact(argv[a], &f) < 0)
			return fail_code(EXIT_USAGE, "'%s': not exe=, comm=, unit=, user-unit=, slice=, user=, signal=, "
					 "container= or hostname= with a valid value", argv[a]);
	i = rules_pick(c->rules, c->n_rules, &f);
	if (i < 0) {
		printf("# no rule matches: the [Coresink] settings apply\n");
	} else {
		printf("# rule %s matches (%s)\n", c->rules[i].name, c->rules[i].where);
		config_apply_rule(c, &c->rules[i]);
	}
	config_print(c, stdout);
	return 0;
}

/*
 * With Encrypt=, the cores of the directory stored before it, in plaintext: said (a warning: the config is right),
 * with what to do about them. Where the directory cannot be read, nothing.
 */
static void plaintext_left(const struct config *c)
{
	int dirfd = c->encrypt.n > 0 ? open(c->directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	unsigned n = corefile_plaintext(dirfd);

	fd_close(&dirfd);
	if (n > 0)
		fprintf(stderr, "warning: %u core(s) in %s were stored before Encrypt= and are in plaintext (coresinkctl "
			"remove, or age -r each and remove the original)\n", n, c->directory);
}

int check_config(const char *path, bool named, int argc, char **argv)
{
	struct config c;
	struct diag d = { 0 };
	int r = 0;

	config_read(&c, path, named, &d);
	plaintext_left(&c);
	if (argc > 0)
		r = which_rule(&c, argc, argv);
	else
		config_print(&c, stdout);
	diag_print_as(&d, stderr);
	config_free(&c);
	return r ? r : diag_count(&d) ? EXIT_WRONG : 0;
}
