/*
 * digest.c: SHA-256 of bytes, as lowercase hex, through OpenSSL's libcrypto (no hash written here): what the
 * handler publishes instead of a secret it keeps until later (the core's record of its entry's id, xattr.c), and a
 * seal's fingerprint of the core an entry holds (report.c, origin.c). Streaming, for a core read in pieces.
 */
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <unistd.h>

#include "digest.h"
#include "io.h"

#define DIGEST_BUFFER (256 * 1024)

/* Starts a digest. 0 or -ENOMEM. */
int digest_begin(struct digest *d)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	d->ctx = c;
	if (!c)
		return -ENOMEM;
	if (EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(c);
		d->ctx = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Adds len bytes. 0 or -EIO. */
int digest_add(struct digest *d, const void *data, size_t len)
{
	return EVP_DigestUpdate(d->ctx, data, len) == 1 ? 0 : -EIO;
}

/* Ends the digest into hex (NUL-terminated) and frees it. 0 or -EIO (hex then ""). */
int digest_end(struct digest *d, char hex[DIGEST_HEX + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	int r = EVP_DigestFinal_ex(d->ctx, md, &n) == 1 && n * 2 == DIGEST_HEX ? 0 : -EIO;

	EVP_MD_CTX_free(d->ctx);
	d->ctx = NULL;
	hex[0] = '\0';
	for (unsigned i = 0; r == 0 && i < n; i++)
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
