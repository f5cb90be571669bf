/*
 * digest.c: SHA-256 of bytes, as lowercase hex, through libsodium (no hash written here): what the handler
 * publishes instead of a secret it keeps until later (the core's record of its entry's id, xattr.c), and a seal's
 * fingerprint of the core an entry holds (report.c, origin.c). Streaming, for a core read in pieces. libsodium, not
 * OpenSSL: linked in (its libsodium.a, the Makefile says why), it adds nothing measurable to the handler's peak RSS,
 * where libcrypto took 1.1 MiB to load and 2.3 MiB more to set up its providers (the handler's bound is 8 MiB:
 * t-bench-crash).
 */
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "digest.h"
#include "io.h"

#define DIGEST_BUFFER (256 * 1024)

/* Starts a digest. 0 or -ENOMEM. */
int digest_begin(struct digest *d)
{
	crypto_hash_sha256_state *s = malloc(sizeof(*s));

	d->ctx = s;
	if (!s)
		return -ENOMEM;
	(void) crypto_hash_sha256_init(s);
	return 0;
}

/* Adds len bytes. 0 or -EIO. */
int digest_add(struct digest *d, const void *data, size_t len)
{
	return crypto_hash_sha256_update(d->ctx, data, len) == 0 ? 0 : -EIO;
}

/* Ends the digest into hex (NUL-terminated) and frees it. 0 or -EIO (hex then ""). */
int digest_end(struct digest *d, char hex[DIGEST_HEX + 1])
{
	unsigned char md[crypto_hash_sha256_BYTES];
	int r = crypto_hash_sha256_final(d->ctx, md) == 0 ? 0 : -EIO;

	free(d->ctx);
	d->ctx = NULL;
	hex[0] = '\0';
	for (size_t i = 0; r == 0 && i < sizeof(md); i++)
		(void) snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return r;
}

/* The digest of len bytes at data. 0 or -errno. */
int digest_hex(const void *data, size_t len, char hex[DIGEST_HEX + 1])
{
	struct digest d;
	int r = digest_begin(&d);

	if (r < 0)
		return r;
	r = digest_add(&d, data, len);
	if (r < 0) {
		(void) digest_end(&d, hex);
		return r;
	}
	return digest_end(&d, hex);
}

/* The digest of the first len bytes of fd, read from offset 0 (its offset is left alone). 0 or -errno. */
int digest_fd(int fd, uint64_t len, char hex[DIGEST_HEX + 1])
{
	static unsigned char buf[DIGEST_BUFFER];
	struct digest d;
	uint64_t at = 0;
	int r = digest_begin(&d);

	while (r == 0 && at < len) {
		const size_t want = len - at < sizeof(buf) ? (size_t)(len - at) : sizeof(buf);
		ssize_t n = io_pread_full(fd, buf, want, (off_t)at);

		r = n < 0 ? (int)n : n == 0 ? -ENODATA : digest_add(&d, buf, (size_t)n);
		at += n > 0 ? (uint64_t)n : 0;
	}
	if (d.ctx && r < 0) {
		char ignored[DIGEST_HEX + 1];

		(void) digest_end(&d, ignored);
		return r;
	}
	return r < 0 ? r : digest_end(&d, hex);
}
