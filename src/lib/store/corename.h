/* corename.h: the stored file's name, written and read back. */
#ifndef CORESINK_CORENAME_H
#define CORESINK_CORENAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NAME_COMM_MAX 32
/* The only bytes a stored name's comm part may hold; vacuum recognizes coresink's files by the same set. */
#define NAME_SAFE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-"
#define NAME_MAX_LEN 128
#define NAME_ZSTD ".zst"   /* what coredumpctl takes for a zstd-compressed core */
#define NAME_AGE ".age"    /* an age file (Encrypt=), after NAME_ZSTD where compressed: core.*.zst.age */

/* What a stored name says. */
struct name_parts {
	char comm[NAME_COMM_MAX + 1];   /* as sanitized */
	pid_t pid;
	uint64_t time;                  /* seconds since the epoch, UTC */
	unsigned attempt;               /* the ".N" of a name clash, 0 without */
	bool compressed;                /* ends in NAME_ZSTD (before any NAME_AGE): zstd */
	bool encrypted;                 /* ends in NAME_AGE: an age file */
};

void name_sanitize(const char *in, char *out, size_t len);
int name_format(char *buf, size_t len, const char *comm, pid_t pid, uint64_t time, unsigned attempt,
		bool compressed, bool encrypted);
int name_parse(const char *name, struct name_parts *p);

#endif
