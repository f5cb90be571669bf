/* entryfields.h: a journal entry's fields read once, for a reader that asks for many of them (entryfields.c). */
#ifndef CORESINK_REPORT_ENTRYFIELDS_H
#define CORESINK_REPORT_ENTRYFIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include <systemd/sd-journal.h>

/* The current entry of j, its fields as "NAME=value" in one buffer, in the entry's order. */
struct entry_fields {
	sd_journal *j;
	char *buf;
	size_t used, cap;
	struct entry_field { size_t off, len, kept; } *f;   /* kept: the bytes in buf (a long one's name only) */
	size_t n, fcap;
};

int entry_fields_load(struct entry_fields *x);
int entry_fields_get(void *ctx, const char *name, const void **data, size_t *len);
bool entry_fields_has(const struct entry_fields *x, const char *name);
void entry_fields_free(struct entry_fields *x);

#endif
