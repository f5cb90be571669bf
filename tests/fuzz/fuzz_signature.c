/*
 * fuzz_signature.c: libFuzzer harness for the crash signature's reading of a stack trace and its canonical names
 * (signature.c), both hostile: a crashing program names its own functions and modules. The input is the trace, a
 * NUL, then the canonical names. Whatever it holds, the signature is 16 hex digits of a one-line text of version 2,
 * and the keys are none or 16 hex digits of a text of their own.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hex16(const char *s)
{
	if (strlen(s) != SIGNATURE_HEX || strspn(s, "0123456789abcdef") != SIGNATURE_HEX)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 2);
	const char *canon;
	struct signature s;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = text[size + 1] = '\0';
	canon = text + strlen(text) + 1;
	signature_make(text, canon < text + size + 1 ? canon : NULL, SIGSEGV, "/usr/bin/prog", &s);
	hex16(s.hex);
	if (strncmp(s.text, "2;SIGSEGV;", 10) != 0 || strchr(s.text, '\n') || s.frames > SIGNATURE_FRAMES)
		abort();
	if (s.keys[0] && (hex16(s.keys), strncmp(s.keys_text, "k2;SIGSEGV;", 11) != 0 || strchr(s.keys_text, '\n')))
		abort();
	free(text);
	return 0;
}
