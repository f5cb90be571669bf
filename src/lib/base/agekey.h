/* agekey.h: age's X25519 keys as text (agekey.c). */
#ifndef CORESINK_AGEKEY_H
#define CORESINK_AGEKEY_H

#define AGE_KEY_BYTES 32

int age_recipient_parse(const char *s, unsigned char key[AGE_KEY_BYTES]);
int age_identity_parse(const char *s, unsigned char key[AGE_KEY_BYTES]);

#endif
