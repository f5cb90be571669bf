/*
 * age.c: the age v1 file format (C2SP age.md) for X25519 recipients, as age(1) reads and writes it: a text header
 * (a stanza per recipient wrapping a random 16-byte file key, then an HMAC of the header), a 16-byte nonce, then the
 * payload in STREAM chunks of 64 KiB, each ChaCha20-Poly1305 with a counter nonce whose last byte marks the last
 * chunk. Every primitive is libsodium's (X25519, ChaCha20-Poly1305-IETF, HMAC-SHA-256, the random bytes, Base64);
 * HKDF-SHA-256 (RFC 5869: one HMAC to extract, one to expand 32 bytes) is built from its HMAC, as libsodium 1.0.18
 * (Debian 12) has no HKDF of its own. Only the format's framing is written here. The writer holds public keys only;
 * its plaintext chunk and keys live in libsodium's locked memory (never swapped), wiped when freed.
 */
#include <errno.h>
#include <sodium.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "age.h"
#include "io.h"

#define INTRO "age-encryption.org/v1\n"
#define X25519_INFO "age-encryption.org/v1/X25519"
#define FILE_KEY 16
#define NONCE 16
#define COLUMNS 64
/* A header larger than this is not one coresink reads (a stanza per recipient, each ~150 bytes). */
#define HEADER_MAX (64 * 1024)

/* HKDF-SHA-256 (RFC 5869) of ikm with salt (none: zeros) and info, 32 bytes into out. */
static void hkdf(const unsigned char *salt, size_t salt_len, const unsigned char *ikm, size_t ikm_len,
		 const char *info, unsigned char out[32])
{
	static const unsigned char zeros[32], one = 1;
	crypto_auth_hmacsha256_state st;
	unsigned char prk[32];

	(void) crypto_auth_hmacsha256_init(&st, salt_len ? salt : zeros, salt_len ? salt_len : sizeof(zeros));
	(void) crypto_auth_hmacsha256_update(&st, ikm, ikm_len);
	(void) crypto_auth_hmacsha256_final(&st, prk);
	(void) crypto_auth_hmacsha256_init(&st, prk, sizeof(prk));
	(void) crypto_auth_hmacsha256_update(&st, (const unsigned char *)info, strlen(info));
	(void) crypto_auth_hmacsha256_update(&st, &one, 1);
	(void) crypto_auth_hmacsha256_final(&st, out);
	sodium_memzero(prk, sizeof(prk));
	sodium_memzero(&st, sizeof(st));
}

/* The header's MAC: HMAC-SHA-256 under HKDF(file key, "header") of the header up to and including "---". */
static void header_mac(const unsigned char file_key[FILE_KEY], const char *header, size_t len, unsigned char mac[32])
{
	unsigned char k[32];

	hkdf(NULL, 0, file_key, FILE_KEY, "header", k);
	(void) crypto_auth_hmacsha256(mac, (const unsigned char *)header, len, k);
	sodium_memzero(k, sizeof(k));
}

/* The nonce of STREAM chunk counter: 11 bytes of counter, big-endian, and the last-chunk flag. */
static void chunk_nonce(uint64_t counter, bool last, unsigned char n[12])
{
	memset(n, 0, 12);
	for (int i = 0; i < 8; i++)
		n[10 - i] = (unsigned char)(counter >> (8 * i));
	n[11] = last;
}

/* b64 (unpadded, standard alphabet, as age writes it) of n bytes at p, at the end of the text t of size cap. */
static int put_b64(char *t, size_t cap, const unsigned char *p, size_t n)
{
	size_t at = strlen(t), need = sodium_base64_encoded_len(n, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);

	if (at + need > cap)
		return -E2BIG;
	(void) sodium_bin2base64(t + at, cap - at, p, n, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
	return 0;
}

static int put(char *t, size_t cap, const char *s)
{
	size_t at = strlen(t), n = strlen(s);

	if (at + n + 1 > cap)
		return -E2BIG;
	memcpy(t + at, s, n + 1);
	return 0;
}

/* One X25519 stanza wrapping file_key to recipient r, at the end of the header t. 0 or -errno. */
static int put_stanza(char *t, size_t cap, const unsigned char r[AGE_KEY_BYTES], const unsigned char file_key[FILE_KEY])
{
	unsigned char e[32], share[32], shared[32], salt[64], wrap[32], body[FILE_KEY + AGE_TAG];
	static const unsigned char zero_nonce[12];
	int rc;

	randombytes_buf(e, sizeof(e));
	rc = crypto_scalarmult_base(share, e) == 0 && crypto_scalarmult(shared, e, r) == 0 ? 0 : -EINVAL;
	sodium_memzero(e, sizeof(e));
	if (rc == 0) {
		memcpy(salt, share, 32);
		memcpy(salt + 32, r, 32);
		hkdf(salt, sizeof(salt), shared, sizeof(shared), X25519_INFO, wrap);
		(void) crypto_aead_chacha20poly1305_ietf_encrypt(body, NULL, file_key, FILE_KEY, NULL, 0, NULL,
								 zero_nonce, wrap);
		/* 32 bytes of body are 43 characters: one line, shorter than 64, ends the stanza. */
		rc = put(t, cap, "-> X25519 ");
		rc = rc ? rc : put_b64(t, cap, share, sizeof(share));
		rc = rc ? rc : put(t, cap, "\n");
		rc = rc ? rc : put_b64(t, cap, body, sizeof(body));
		rc = rc ? rc : put(t, cap, "\n");
	}
	sodium_memzero(shared, sizeof(shared));
	sodium_memzero(wrap, sizeof(wrap));
	return rc;
}

/*
 * Starts a file encrypted to the n recipients (X25519 public keys): its header and nonce go to emit, which writes
 * them, and later the chunks, at the file's end. 0 or -errno.
 */
int age_begin(struct age_writer *a, const unsigned char (*recipients)[AGE_KEY_BYTES], size_t n, age_emit_fn emit,
	      void *ctx)
{
	char header[200 * AGE_RECIPIENTS_MAX] = INTRO;
	unsigned char file_key[FILE_KEY], mac[32], nonce[NONCE];
	int r = n > 0 && n <= AGE_RECIPIENTS_MAX && sodium_init() >= 0 ? 0 : -EINVAL;

	*a = (struct age_writer) { .emit = emit, .ctx = ctx };
	if (r < 0)
		return r;
	a->plain = sodium_malloc(AGE_CHUNK);
	a->sealed = sodium_malloc(AGE_CHUNK + AGE_TAG);
	if (!a->plain || !a->sealed) {
		age_writer_free(a);
		return -ENOMEM;
	}
	randombytes_buf(file_key, sizeof(file_key));
	randombytes_buf(nonce, sizeof(nonce));
	for (size_t i = 0; r == 0 && i < n; i++)
		r = put_stanza(header, sizeof(header), recipients[i], file_key);
	r = r ? r : put(header, sizeof(header), "---");
	if (r == 0) {
		header_mac(file_key, header, strlen(header), mac);
		r = put(header, sizeof(header), " ");
	}
	r = r ? r : put_b64(header, sizeof(header), mac, sizeof(mac));
	r = r ? r : put(header, sizeof(header), "\n");
	hkdf(nonce, sizeof(nonce), file_key, sizeof(file_key), "payload", a->key);
	sodium_memzero(file_key, sizeof(file_key));
	r = r ? r : emit(ctx, header, strlen(header));
	r = r ? r : emit(ctx, (const char *)nonce, sizeof(nonce));
	if (r < 0) {
		age_writer_free(a);
		return r;
	}
	a->written = strlen(header) + sizeof(nonce);
	return 0;
}

/* Seals the held chunk (last or not) and emits it. 0 or -errno. */
static int seal(struct age_writer *a, bool last)
{
	unsigned char nonce[12];
	int r;

	chunk_nonce(a->counter, last, nonce);
	(void) crypto_aead_chacha20poly1305_ietf_encrypt(a->sealed, NULL, a->plain, a->held, NULL, 0, NULL, nonce,
							 a->key);
	r = a->emit(a->ctx, (const char *)a->sealed, a->held + AGE_TAG);
	if (r < 0)
		return r;
	a->written += a->held + AGE_TAG;
	a->counter++;
	a->held = 0;
	return 0;
}

/* Takes n bytes of plaintext; a full chunk is sealed once more follows (only the last may be short). 0 or -errno. */
int age_write(struct age_writer *a, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	while (n > 0) {
		size_t take;
		int r;

		if (a->held == AGE_CHUNK && (r = seal(a, false)) < 0)
			return r;
		take = n < AGE_CHUNK - a->held ? n : AGE_CHUNK - a->held;
		memcpy(a->plain + a->held, p, take);
		a->held += take;
		p += take;
		n -= take;
	}
	return 0;
}

/* Seals the last chunk (empty only where the whole payload is). 0 or -errno. */
int age_end(struct age_writer *a)
{
	return seal(a, true);
}

void age_writer_free(struct age_writer *a)
{
	sodium_free(a->plain);
	sodium_free(a->sealed);
	sodium_memzero(a->key, sizeof(a->key));
	a->plain = a->sealed = NULL;
}

/* The next line of the header at *at (without its "\n"), its length into *n. false where there is none. */
static bool next_line(const char *buf, size_t len, size_t *at, const char **line, size_t *n)
{
	const char *nl = *at < len ? memchr(buf + *at, '\n', len - *at) : NULL;

	if (!nl)
		return false;
	*line = buf + *at;
	*n = (size_t)(nl - *line);
	*at += *n + 1;
	return true;
}

/* Exactly want bytes of the unpadded Base64 of n characters at s. 0 or -EBADMSG. */
static int b64_exact(const char *s, size_t n, unsigned char *out, size_t want)
{
	size_t got = 0;

	if (n != sodium_base64_encoded_len(want, sodium_base64_VARIANT_ORIGINAL_NO_PADDING) - 1)
		return -EBADMSG;
	return sodium_base642bin(out, want, s, n, NULL, &got, NULL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING) == 0 &&
	       got == want ? 0 : -EBADMSG;
}

/* An X25519 stanza's share and body, unwrapped with the identity: the file key, 0; -ENOKEY when not for it. */
static int unwrap(const unsigned char share[32], const unsigned char body[FILE_KEY + AGE_TAG],
		  const unsigned char identity[AGE_KEY_BYTES], unsigned char file_key[FILE_KEY])
{
	static const unsigned char zero_nonce[12];
	unsigned char shared[32], salt[64], wrap[32];
	int r = -ENOKEY;

	if (crypto_scalarmult(shared, identity, share) == 0 && crypto_scalarmult_base(salt + 32, identity) == 0) {
		memcpy(salt, share, 32);
		hkdf(salt, sizeof(salt), shared, sizeof(shared), X25519_INFO, wrap);
		if (crypto_aead_chacha20poly1305_ietf_decrypt(file_key, NULL, NULL, body, FILE_KEY + AGE_TAG, NULL, 0,
							      zero_nonce, wrap) == 0)
			r = 0;
	}
	sodium_memzero(shared, sizeof(shared));
	sodium_memzero(wrap, sizeof(wrap));
	return r;
}

/*
 * The header at the start of buf (len bytes: at least the whole header), read with identity (an X25519 secret
 * key): the file key of the stanza meant for it, the MAC checked, into key (still the file key: age_open derives the
 * payload's); the header's length into *header_len. 0; -EBADMSG (not an age v1 header, or one that was changed),
 * -ENOKEY (no stanza for this identity), -E2BIG (longer than coresink reads).
 */
int age_read_header(const char *buf, size_t len, const unsigned char identity[AGE_KEY_BYTES], unsigned char key[32],
		    size_t *header_len)
{
	unsigned char share[32], body[FILE_KEY + AGE_TAG], mac[32], want[32];
	size_t at = 0, n, stanzas = 0;
	const char *line;
	int found = -ENOKEY;

	if (!next_line(buf, len, &at, &line, &n))
		return len >= HEADER_MAX ? -E2BIG : -EBADMSG;
	if (n + 1 != strlen(INTRO) || memcmp(line, INTRO, n) != 0)
		return -EBADMSG;
	while (next_line(buf, len, &at, &line, &n)) {
		if (n >= 4 && memcmp(line, "--- ", 4) == 0) {
			if (stanzas == 0 || b64_exact(line + 4, n - 4, mac, sizeof(mac)) < 0)
				return -EBADMSG;
			if (found < 0)
				return found;
			header_mac(key, buf, (size_t)(line - buf) + 3, want);
			if (sodium_memcmp(mac, want, sizeof(mac)) != 0)
				return -EBADMSG;
			*header_len = at;
			return 0;
		}
		if (n < 4 || memcmp(line, "-> ", 3) != 0 || line[3] == ' ')
			return -EBADMSG;
		stanzas++;
		bool x25519 = n == 3 + 7 + 43 && memcmp(line + 3, "X25519 ", 7) == 0 &&
			      b64_exact(line + 10, 43, share, sizeof(share)) == 0;
		/* The body: lines of 64 columns, ended by a shorter one (empty, at the least). */
		const char *b = NULL;
		size_t bn = COLUMNS, lines = 0;

		while (bn == COLUMNS && next_line(buf, len, &at, &b, &bn))
			if (bn > COLUMNS || ++lines > HEADER_MAX / COLUMNS)
				return -EBADMSG;
		if (!b)
			return len >= HEADER_MAX ? -E2BIG : -EBADMSG;
		if (x25519 && found < 0 && lines == 1 && b64_exact(b, bn, body, sizeof(body)) == 0)
			found = unwrap(share, body, identity, key);
		else if (x25519 && (lines != 1 || bn != 43))
			return -EBADMSG;
	}
	return len >= HEADER_MAX ? -E2BIG : -EBADMSG;
}

/* Opens the age file fd (at its start) with identity: its header read and checked, the payload's key made. */
int age_open(struct age_reader *a, int fd, const unsigned char identity[AGE_KEY_BYTES])
{
	char *buf;
	unsigned char file_key[32];
	size_t header_len = 0;
	ssize_t got;
	int r = sodium_init() >= 0 ? 0 : -EIO;

	*a = (struct age_reader) { .fd = fd };
	buf = sodium_malloc(HEADER_MAX);
	a->sealed = sodium_malloc(AGE_CHUNK + AGE_TAG);
	if (r < 0 || !buf || !a->sealed) {
		sodium_free(buf);
		age_reader_free(a);
		return r < 0 ? r : -ENOMEM;
	}
	got = io_pread_full(fd, buf, HEADER_MAX, 0);
	r = got < 0 ? (int)got : age_read_header(buf, (size_t)got, identity, file_key, &header_len);
	if (r == 0 && (size_t)got < header_len + NONCE)
		r = -EBADMSG;
	if (r == 0) {
		hkdf((unsigned char *)buf + header_len, NONCE, file_key, FILE_KEY, "payload", a->key);
		r = lseek(fd, (off_t)(header_len + NONCE), SEEK_SET) < 0 ? -errno : 0;
	}
	sodium_memzero(file_key, sizeof(file_key));
	sodium_free(buf);
	if (r < 0)
		age_reader_free(a);
	return r;
}

/*
 * The next chunk's plaintext into out (AGE_CHUNK bytes of room): its length, 0 after the last, or -EBADMSG (changed,
 * cut, or more after the last chunk), -errno.
 */
ssize_t age_read(struct age_reader *a, unsigned char *out)
{
	unsigned char nonce[12], extra;
	ssize_t got;
	unsigned long long n = 0;

	if (a->done)
		return 0;
	got = io_read_full(a->fd, a->sealed, AGE_CHUNK + AGE_TAG, NULL);
	if (got < 0)
		return got;
	if (got < AGE_TAG || (got == AGE_TAG && a->counter > 0))
		return -EBADMSG;
	/* A full chunk is the last only where nothing follows it (age.md: a short one always is). */
	chunk_nonce(a->counter, false, nonce);
	if (got == AGE_CHUNK + AGE_TAG && crypto_aead_chacha20poly1305_ietf_decrypt(out, &n, NULL, a->sealed,
			(unsigned long long)got, NULL, 0, nonce, a->key) == 0) {
		a->counter++;
		return (ssize_t)n;
	}
	chunk_nonce(a->counter, true, nonce);
	if (crypto_aead_chacha20poly1305_ietf_decrypt(out, &n, NULL, a->sealed, (unsigned long long)got, NULL, 0,
						      nonce, a->key) != 0)
		return -EBADMSG;
	if (io_read_full(a->fd, &extra, 1, NULL) != 0)
		return -EBADMSG;
	a->done = 1;
	a->counter++;
	return (ssize_t)n;
}

void age_reader_free(struct age_reader *a)
{
	sodium_free(a->sealed);
	a->sealed = NULL;
	sodium_memzero(a->key, sizeof(a->key));
}
