/* pkgnote.h: the ELF package note (.note.package, "FDO", 0xcafe1a7e): its JSON payload read, and written back. */
#ifndef CORESINK_PKGNOTE_H
#define CORESINK_PKGNOTE_H

#include <stddef.h>
#include <stdio.h>

#define PKGNOTE_TYPE 0xcafe1a7eU
#define PKGNOTE_OWNER "FDO"
#define PKGNOTE_PAIRS 16
#define PKGNOTE_KEY 64
#define PKGNOTE_VALUE 256

/* A package note: a flat JSON object of strings (https://systemd.io/ELF_PACKAGE_METADATA). */
struct pkgnote {
	int n;
	char key[PKGNOTE_PAIRS][PKGNOTE_KEY];
	char value[PKGNOTE_PAIRS][PKGNOTE_VALUE];
};

int pkgnote_parse(const char *payload, size_t len, struct pkgnote *p);
const char *pkgnote_get(const struct pkgnote *p, const char *key);
void pkgnote_json(FILE *f, const char *module, const struct pkgnote *p, const char *build_id);

#endif
