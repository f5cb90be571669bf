/*
 * agekey.c: age's keys as age-keygen writes them (C2SP age.md, "X25519 recipient type"): a recipient "age1..." and
 * an identity "AGE-SECRET-KEY-1...", each Bech32 (BIP 173, without its 90-character bound) of a 32-byte X25519 key.
 * The text comes from the admin's config or identity file; anything not exactly a key is -EINVAL. Only the framing
 * is here: the keys themselves go to libsodium (age.c).
 */
#include <ctype.h>
#include <sodium.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "agekey.h"

static const char charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

/* BIP 173's checksum function over the 5-bit values. */
static uint32_t polymod(const unsigned char *v, size_t n)
{
	static const uint32_t gen[5] = { 0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3 };
	uint32_t chk = 1;

	for (size_t i = 0; i < n; i++) {
		uint32_t top = chk >> 25;

		chk = (chk & 0x1ffffff) << 5 ^ v[i];
		for (int j = 0; j < 5; j++)
			chk ^= (top >> j & 1) ? gen[j] : 0;
	}
	return chk;
}

/*
 * s, Bech32 with the human-readable part hrp (compared without case; s in one case throughout), into the 32 bytes of
 * key. 0 or -EINVAL.
 */
static int bech32_key(const char *s, const char *hrp, unsigned char key[AGE_KEY_BYTES])
{
	unsigned char v[128];
	size_t hl = strlen(hrp), len = strlen(s), dl, n = 0, out = 0;
	bool lower = false, upper = false;
	uint32_t acc = 0;
	unsigned bits = 0;

	/* hrp, "1", 52 characters of key, 6 of checksum. */
	if (len != hl + 1 + 52 + 6 || strncasecmp(s, hrp, hl) != 0 || s[hl] != '1')
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		lower |= islower((unsigned char)s[i]) != 0;
		upper |= isupper((unsigned char)s[i]) != 0;
	}
	if (lower && upper)
		return -EINVAL;
	/* The checksum covers the hrp expanded (high bits, 0, low bits), then the data. */
	for (size_t i = 0; i < hl; i++)
		v[n++] = (unsigned char)(tolower((unsigned char)s[i]) >> 5);
	v[n++] = 0;
	for (size_t i = 0; i < hl; i++)
		v[n++] = (unsigned char)(tolower((unsigned char)s[i]) & 31);
	dl = len - hl - 1;
	for (size_t i = 0; i < dl; i++) {
		const char *p = strchr(charset, tolower((unsigned char)s[hl + 1 + i]));

		if (!p || *p == '\0')
			return -EINVAL;
		v[n++] = (unsigned char)(p - charset);
	}
	if (polymod(v, n) != 1)
		return -EINVAL;
	/* The 52 values of 5 bits (260) into 32 bytes (256): the 4 bits left over must be zero. */
	for (size_t i = n - dl; i < n - 6; i++) {
		acc = acc << 5 | v[i];
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			key[out++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	return out == AGE_KEY_BYTES && bits < 5 && acc == 0 ? 0 : -EINVAL;
}

/* "age1..." into the recipient's X25519 public key. 0 or -EINVAL. */
int age_recipient_parse(const char *s, unsigned char key[AGE_KEY_BYTES])
{
	/* A recipient is written in lower case (age.md). */
	for (const char *p = s; *p; p++)
		if (isupper((unsigned char)*p))
			return -EINVAL;
	return bech32_key(s, "age", key);
}

/* "AGE-SECRET-KEY-1..." into the identity's X25519 secret key. 0 or -EINVAL. */
int age_identity_parse(const char *s, unsigned char key[AGE_KEY_BYTES])
{
	for (const char *p = s; *p; p++)
		if (islower((unsigned char)*p))
			return -EINVAL;
	return bech32_key(s, "age-secret-key-", key);
}

/*
 * An identity file's text: blank lines and "#" comments, every other line an identity, added to those ids holds
 * (several files add up, as age's -i; AGE_IDENTITIES_MAX in all). 0, or -EINVAL (a line that is not one, or none at
 * all: the file is not an identity file), -E2BIG; on an error ids keeps the lines before it.
 */
int age_identities_parse(const char *text, struct age_identities *ids)
{
	unsigned first = ids->n;
	int r = 0;

	while (r == 0 && *text) {
		size_t n = strcspn(text, "\n");
		char line[128];

		while (n > 0 && (text[n - 1] == '\r' || text[n - 1] == ' '))
			n--;
		if (n > 0 && text[0] != '#') {
			if (n >= sizeof(line))
				r = -EINVAL;
			else if (ids->n >= AGE_IDENTITIES_MAX)
				r = -E2BIG;
			else {
				memcpy(line, text, n);
				line[n] = '\0';
				r = age_identity_parse(line, ids->keys[ids->n]);
				ids->n += r == 0;
				sodium_memzero(line, sizeof(line));
			}
		}
		text += strcspn(text, "\n");
		text += *text == '\n';
	}
	if (r == 0 && ids->n == first)
		r = -EINVAL;
	return r;
}
