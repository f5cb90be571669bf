/* parse.h: strict parsers for the numbers, sizes and modes found in arguments and the config file. */
#ifndef CORESINK_PARSE_H
#define CORESINK_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A size given either in bytes or as a percentage of the file system, optionally capped (defaults only). */
struct size_spec {
	uint64_t value;
	bool percent;
	uint64_t cap;
};

int parse_u64(const char *s, uint64_t *ret);
int parse_u64_prefix(const char *s, size_t n, uint64_t *ret);
int parse_bytes(const char *s, uint64_t *ret);
int parse_duration(const char *s, uint64_t bare_usec, uint64_t *usec);
int parse_epoch_usec(const char *s, uint64_t *usec);
int parse_hex64(const char *s, uint64_t *ret);
int parse_size_spec(const char *s, struct size_spec *ret);
int parse_mode(const char *s, mode_t *ret);
int format_size_spec(char *buf, size_t len, const struct size_spec *s);

#endif
