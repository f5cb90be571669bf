/*
 * age.h: files in the age v1 format (C2SP age.md), X25519 recipients only, written as their plaintext comes and read
 * back with an identity (age.c). Interoperable with age(1) both ways.
 */
#ifndef CORESINK_AGE_H
#define CORESINK_AGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agekey.h"

/* The plaintext of one STREAM chunk (age.md: 64 KiB), and what its tag adds. */
#define AGE_CHUNK (64 * 1024)
#define AGE_TAG 16
#define AGE_RECIPIENTS_MAX 16

/* Writes n bytes of the file at its end: 0 or -errno. */
typedef int (*age_emit_fn)(void *ctx, const char *buf, size_t n);

/* A file being written: the payload key, the chunk held until it is known whether it is the last. */
struct age_writer {
	unsigned char key[32];
	uint64_t counter;         /* chunks written */
	unsigned char *plain;     /* AGE_CHUNK, locked in memory */
	unsigned char *sealed;    /* AGE_CHUNK + AGE_TAG */
	size_t held;
	uint64_t written;         /* bytes emitted: header, nonce, chunks */
	age_emit_fn emit;
	void *ctx;
};

int age_begin(struct age_writer *a, const unsigned char (*recipients)[AGE_KEY_BYTES], size_t n, age_emit_fn emit,
	      void *ctx);
int age_write(struct age_writer *a, const void *buf, size_t n);
int age_end(struct age_writer *a);
void age_writer_free(struct age_writer *a);

/* A file being read: after its header, the payload chunk by chunk. */
struct age_reader {
	unsigned char key[32];
	uint64_t counter;
	unsigned char *sealed;    /* AGE_CHUNK + AGE_TAG */
	int fd;
	int done;                 /* the last chunk was read */
};

int age_open(struct age_reader *a, int fd, const unsigned char identity[AGE_KEY_BYTES]);
int age_read_header(const char *buf, size_t len, const unsigned char identity[AGE_KEY_BYTES], unsigned char key[32],
		    size_t *header_len);
ssize_t age_read(struct age_reader *a, unsigned char *out);
void age_reader_free(struct age_reader *a);

#endif
