/*
 * crashjson.c: a crash's journal fields, as its entry holds them (the process's own strings escaped already), as one
 * JSON object {"NAME": "value", ...} and as NAME=value environment variables. JSON strings are valid for any bytes:
 * the quote, the backslash and every control character (C0, DEL, C1) escaped as \uXXXX, a byte that is not part of
 * valid UTF-8 written as the text "\xNN" (as escape.c writes it into entries); the environment takes the fields of
 * one line only (the stack trace and /proc's multi-line files are in the JSON), each at most ENV_VALUE_MAX bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "crashjson.h"

#define ENV_VALUE_MAX 4096

/* Writes the len bytes at s (any bytes, NULs too) to m as a valid JSON string. */
void json_string(FILE *m, const char *s, size_t len)
{
	fputc('"', m);
	for (size_t i = 0; i < len;) {
		uint32_t c = 0;
		size_t n = escape_utf8(s + i, len - i, &c);

		if (n == 0)
			fprintf(m, "\\\\x%02x", (unsigned char)s[i]);
		else if (c == '"' || c == '\\')
			fprintf(m, "\\%c", (char)c);
		else if (c == '\n')
			fputs("\\n", m);
		else if (escape_is_control(c))
			fprintf(m, "\\u%04x", (unsigned)c);
		else
			(void) fwrite(s + i, 1, n, m);
		i += n ? n : 1;
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
