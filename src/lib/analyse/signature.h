/* signature.h: what identifies a crash's bug, from its stack trace's text (signature.c, docs/signatures.md). */
#ifndef CORESINK_SIGNATURE_H
#define CORESINK_SIGNATURE_H

#include <stdbool.h>

#define SIGNATURE_FRAMES 3      /* meaningful frames that make the signature */
#define SIGNATURE_TEXT_MAX 1024
#define SIGNATURE_HEX 16

struct signature {
	char hex[SIGNATURE_HEX + 1];     /* CORESINK_SIGNATURE= */
	char text[SIGNATURE_TEXT_MAX];   /* what was hashed: CORESINK_SIGNATURE_TEXT= */
	unsigned frames;                 /* frames in it */
	bool from_trace;                 /* false: the weaker one, from the executable and the signal */
	char keys[SIGNATURE_HEX + 1];    /* CORESINK_SIGNATURE_KEYS=: the same by module ids and offsets; "" none */
	char keys_text[SIGNATURE_TEXT_MAX];
};

void signature_make(const char *trace, const char *canon, int sig, const char *exe, struct signature *s);

#endif
