/*
 * crashjson.c: a crash's journal fields, as its entry holds them (the process's own strings escaped already), as one
 * JSON object {"NAME": "value", ...} and as NAME=value environment variables. JSON strings escape the quote, the
 * backslash and every control byte; the environment takes the fields of one line only (the stack trace and /proc's
 * multi-line files are in the JSON), each at most ENV_VALUE_MAX bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashjson.h"

#define ENV_VALUE_MAX 4096

/* Writes the len bytes at s to m as a JSON string. */
void json_string(FILE *m, const char *s, size_t len)
{
	fputc('"', m);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(m, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", m);
		else if (c < 0x20 || c == 0x7f)
			fprintf(m, "\\u%04x", c);
		else
			fputc(c, m);
	}
	fputc('"', m);
}

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
		json_string(m, field, (size_t)(eq - field));
		fputs(": ", m);
		json_string(m, eq + 1, f->iov[i].iov_len - (size_t)(eq - field) - 1);
	}
	fputs("}\n", m);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* Whether the field fits an environment variable: one line, NUL-free, not too long, not the message. */
static bool env_worthy(const char *field, size_t len)
{
	return len < ENV_VALUE_MAX && !memchr(field, '\n', len) && !memchr(field, '\0', len) &&
	       strncmp(field, "MESSAGE=", 8) != 0;
}

/* The fields of one line as NAME=value, then extra's (NULL-terminated), in one NULL-terminated array; or NULL. */
char **crash_env(const struct fields *f, const char *const *extra)
{
	size_t n = 0, k = 0;
	char **env;

	while (extra && extra[n])
		n++;
	env = calloc(f->n + n + 1, sizeof(*env));
	for (size_t i = 0; env && i < f->n; i++)
		if (env_worthy(f->iov[i].iov_base, f->iov[i].iov_len))
			env[k++] = strndup(f->iov[i].iov_base, f->iov[i].iov_len);
	for (size_t i = 0; env && i < n; i++)
		env[k++] = strdup(extra[i]);
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
