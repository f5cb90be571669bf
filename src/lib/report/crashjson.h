/* crashjson.h: a crash's journal fields as one JSON object and as environment variables, for ExecUpload=. */
#ifndef CORESINK_CRASHJSON_H
#define CORESINK_CRASHJSON_H

#include "journal.h"

#include <stdbool.h>
#include <stdio.h>

char *crash_json(const struct fields *f);
bool crash_fields_ours(const struct fields *f, char *why, size_t len);
char **crash_env(const struct fields *f, const char *const *extra);
void crash_env_free(char **env);

#endif
