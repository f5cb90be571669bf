/* digest.h: SHA-256 of bytes, as lowercase hex, through libsodium. */
#ifndef CORESINK_DIGEST_H
#define CORESINK_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/* The hex of a SHA-256, without its NUL. */
#define DIGEST_HEX 64

struct digest {
	void *ctx;   /* libsodium's crypto_hash_sha256_state */
};

int digest_begin(struct digest *d);
int digest_add(struct digest *d, const void *data, size_t len);
int digest_end(struct digest *d, char hex[DIGEST_HEX + 1]);
int digest_hex(const void *data, size_t len, char hex[DIGEST_HEX + 1]);
int digest_fd(int fd, uint64_t len, char hex[DIGEST_HEX + 1]);

#endif
