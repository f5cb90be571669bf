/* crashjson.h: a crash's journal fields as one JSON object and as environment variables, for ExecUpload=. */
#ifndef CORESINK_CRASHJSON_H
#define CORESINK_CRASHJSON_H

#include "journal.h"

#include <stdio.h>

void json_string(FILE *m, const char *s, size_t len);
char *crash_json(const struct fields *f);
char **crash_env(const struct fields *f, const char *const *extra);
void crash_env_free(char **env);

#endif
