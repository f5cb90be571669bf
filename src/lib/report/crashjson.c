/*
 * crashjson.c: a crash's journal fields, as its entry holds them (the process's own strings escaped already), as one
 * JSON object {"NAME": "value", ...} (escape_json(): valid for any bytes) and as NAME=value environment variables;
 * the environment takes the fields of one line only (the stack trace and /proc's multi-line files are in the
 * JSON), each at most ENV_VALUE_MAX bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "crashjson.h"

#define ENV_VALUE_MAX 4096

/* The fields as one JSON object (malloc'd), or NULL. */
char *crash_json(const struct fields *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	fputc('{', m);
	for (size_t i = 0; i < f->n; i++) {
		const char *field = f->iov[i].iov_base, *eq = memchr(field, '=', f->iov[i].iov_len);

		if (!eq)
			continue;
		fputs(i ? ", " : "", m);
		escape_json(m, field, (size_t)(eq - field));
		fputs(": ", m);
		escape_json(m, eq + 1, f->iov[i].iov_len - (size_t)(eq - field) - 1);
	}
	fputs("}\n", m);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * The fields of a crash's entry that a command may be given in its environment: the handler's own, each of one line
 * (the multi-line ones, /proc's files and the trace, are in the JSON). Nothing else reaches a command's
 * environment, whoever sent the fields (the door believes no server: LD_PRELOAD=, PATH=, HTTPS_PROXY= never pass).
 */
static const char *const env_fields[] = {
	"COREDUMP_PID", "COREDUMP_UID", "COREDUMP_GID", "COREDUMP_SIGNAL", "COREDUMP_SIGNAL_NAME", "COREDUMP_CODE",
	"COREDUMP_TIMESTAMP", "COREDUMP_RLIMIT", "COREDUMP_HOSTNAME", "COREDUMP_COMM", "COREDUMP_EXE",
	"COREDUMP_CMDLINE", "COREDUMP_CGROUP", "COREDUMP_UNIT", "COREDUMP_USER_UNIT", "COREDUMP_SLICE",
	"COREDUMP_OWNER_UID", "COREDUMP_CWD", "COREDUMP_ROOT", "COREDUMP_TID", "COREDUMP_DUMPABLE",
	"COREDUMP_FILENAME", "COREDUMP_TRUNCATED", "COREDUMP_SIZE", "COREDUMP_PACKAGE_NAME", "COREDUMP_PACKAGE_VERSION",
	"COREDUMP_PACKAGE_JSON", "COREDUMP_CONTAINER_CMDLINE", "CORESINK_ENTRY", "CORESINK_RESULT", "CORESINK_MODE",
	"CORESINK_SIZE", "CORESINK_DISK", "CORESINK_LIMIT", "CORESINK_STORAGE", "CORESINK_COMPRESSED", "CORESINK_ENCRYPTED",
	"CORESINK_RULE",
	"CORESINK_SIGNATURE", "CORESINK_SIGNATURE_TEXT", "CORESINK_SIGNATURE_FROM", "CORESINK_SIGNATURE_KEYS",
	"CORESINK_SIGNATURE_NEW", "CORESINK_SIGNATURE_SEEN", "CORESINK_SIGNATURE_FIRST_SEEN", "CORESINK_HOSTNAME",
	"CORESINK_MACHINE", "CORESINK_CONTAINER_RUNTIME", "CORESINK_CONTAINER_ID", "CORESINK_CONTAINER_NAME",
	"CORESINK_CONTAINER_IMAGE", "CORESINK_CONTAINER_PID", "CORESINK_CONTAINER_FROM", "CORESINK_POD_ID",
	"CORESINK_POD_UID", "CORESINK_POD_NAME", "CORESINK_POD_NAMESPACE", "CORESINK_POD_LABELS", "CORESINK_POD_FROM",
	"CORESINK_CONTAINER_LABELS",
	"CORESINK_MODULES_KEPT", "CORESINK_DEBUGINFO", "CORESINK_UPLOAD",
};

/* The length of the name of field (len bytes, NAME=value), or 0 where it is not one of A-Z, 0-9 and _. */
static size_t name_len(const char *field, size_t len)
{
	const char *eq = memchr(field, '=', len);
	const size_t k = eq ? (size_t)(eq - field) : 0;
	size_t i = 0;

	while (i < k && ((field[i] >= 'A' && field[i] <= 'Z') || (field[i] >= '0' && field[i] <= '9') || field[i] == '_'))
		i++;
	return i == k ? k : 0;
}

/* Whether the name of field (k bytes) is one of the NULL-terminated list. */
static bool named(const char *field, size_t k, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n && list[i]; i++)
		if (strlen(list[i]) == k && memcmp(list[i], field, k) == 0)
			return true;
	return false;
}

/* Whether the value of field (len bytes, its name k) is as the handler writes one of one line: valid, clean UTF-8. */
static bool clean_line(const char *field, size_t len, size_t k)
{
	char value[ENV_VALUE_MAX];

	if (len - k - 1 >= sizeof(value) || memchr(field + k + 1, '\0', len - k - 1))
		return false;
	memcpy(value, field + k + 1, len - k - 1);
	value[len - k - 1] = '\0';
	return escape_clean(value);
}

/* Whether field (len bytes) may go into a command's environment: a name of env_fields, a clean value of one line. */
static bool env_worthy(const char *field, size_t len)
{
	const size_t k = name_len(field, len);

	return k && named(field, k, env_fields, ELEMENTSOF(env_fields)) && clean_line(field, len, k);
}

/*
 * Whether every field of f is one a crash's entry holds: a name of COREDUMP_*, CORESINK_* or journald's few the
 * handler sets, and, for the names of env_fields, a value as the handler writes it. The first that is not, said
 * into why (len bytes). The door's check of what socket mode's server sends it.
 */
bool crash_fields_ours(const struct fields *f, char *why, size_t len)
{
	static const char *const journal_own[] = { "MESSAGE", "MESSAGE_ID", "PRIORITY", "SYSLOG_IDENTIFIER" };

	for (size_t i = 0; i < f->n; i++) {
		const char *field = f->iov[i].iov_base;
		const size_t n = f->iov[i].iov_len, k = name_len(field, n);
		char name[64];

		(void) snprintf(name, sizeof(name), "%.*s", (int)(n < 48 ? n : 48), field);
		if (!k || (strncmp(field, "COREDUMP_", 9) != 0 && strncmp(field, "CORESINK_", 9) != 0 &&
			   !named(field, k, journal_own, ELEMENTSOF(journal_own)))) {
			(void) escape_text(why, len, name, ESCAPE_BACKSLASH);
			return false;
		}
		if (named(field, k, env_fields, ELEMENTSOF(env_fields)) && !clean_line(field, n, k)) {
			(void) snprintf(why, len, "%.*s: not a value the handler writes", (int)k, field);
			return false;
		}
	}
	return true;
}

/*
 * The fixed variables extra (NULL-terminated) first, then the fields env_worthy() takes as NAME=value; none can
 * stand for a fixed one (env_fields names none of them). One NULL-terminated array, or NULL.
 */
char **crash_env(const struct fields *f, const char *const *extra)
{
	size_t n = 0, k = 0;
	char **env;

	while (extra && extra[n])
		n++;
	env = calloc(f->n + n + 1, sizeof(*env));
	for (size_t i = 0; env && i < n; i++)
		env[k++] = strdup(extra[i]);
	for (size_t i = 0; env && i < f->n; i++)
		if (env_worthy(f->iov[i].iov_base, f->iov[i].iov_len))
			env[k++] = strndup(f->iov[i].iov_base, f->iov[i].iov_len);
	for (size_t i = 0; env && i < k; i++) {
		if (!env[i]) {
			crash_env_free(env);
			return NULL;
		}
	}
	return env;
}

void crash_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}
