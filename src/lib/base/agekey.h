/* agekey.h: age's X25519 keys as text (agekey.c). */
#ifndef CORESINK_AGEKEY_H
#define CORESINK_AGEKEY_H

#define AGE_KEY_BYTES 32
#define AGE_IDENTITIES_MAX 16

/* The identities of an identity file (age-keygen's: comments, then AGE-SECRET-KEY-1... lines). */
struct age_identities {
	unsigned char keys[AGE_IDENTITIES_MAX][AGE_KEY_BYTES];
	unsigned n;
};

int age_recipient_parse(const char *s, unsigned char key[AGE_KEY_BYTES]);
int age_identity_parse(const char *s, unsigned char key[AGE_KEY_BYTES]);
int age_identities_parse(const char *text, struct age_identities *ids);

#endif
