/* labels.h: a container's or a pod's labels as "KEY=VALUE" words (labels.c). */
#ifndef CORESINK_LABELS_H
#define CORESINK_LABELS_H

#include <stdbool.h>
#include <stddef.h>

#include "base.h"

/* The words of a label bucket as they are given (labels_word, a bolt_each_fn). */
struct label_words {
	char *out;
	size_t len, used;
	bool full;
};

bool labels_add(char *out, size_t len, size_t *used, const char *key, const char *value);
void labels_json(struct json_object *obj, char *out, size_t len);
void labels_text(const char *text, char *out, size_t len);
void labels_words(char *w, char *out, size_t len);
void labels_word(const char *key, size_t klen, const char *value, size_t vlen, void *arg);

#endif
