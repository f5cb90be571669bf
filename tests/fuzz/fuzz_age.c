/*
 * fuzz_age.c: libFuzzer harness for what reads another program's age files and keys (base/age.c, agekey.c): an
 * identity file's text, a header, a whole file read with an identity. The first byte says which. The seeds are
 * age(1)'s own output for the identity below (tests/fuzz/corpus/age).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* check_age.c's identity: the seeds were encrypted to its recipient. */
static const char *const SECRET = "AGE-SECRET-KEY-1H89HK47TERVRZFPDEYA6T7JVP8PTQM842QGMD8K3GCSL9XLG9LPSALXXGU";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char out[AGE_CHUNK];
	unsigned char id[AGE_KEY_BYTES], key[32];
	struct age_identities ids = { .n = 0 };
	struct age_reader a;
	size_t header = 0;
	char *text;
	int fd;

	if (size < 1 || age_identity_parse(SECRET, id) < 0)
		return 0;
	switch (data[0] % 3) {
	case 0:
		text = malloc(size);
		if (!text)
			return 0;
		memcpy(text, data + 1, size - 1);
		text[size - 1] = '\0';
		if (age_identities_parse(text, &ids) == 0 && (ids.n == 0 || ids.n > AGE_IDENTITIES_MAX))
			abort();
		free(text);
		break;
	case 1:
		if (age_read_header((const char *)data + 1, size - 1, id, key, &header) == 0 && header > size - 1)
			abort();
		break;
	default:
		fd = memfd_create("fuzz", MFD_CLOEXEC);
		if (fd < 0)
			return 0;
		if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1) && lseek(fd, 0, SEEK_SET) == 0 &&
		    age_open(&a, fd, id) == 0) {
			ssize_t n;

			while ((n = age_read(&a, out)) > 0)
				if (n > AGE_CHUNK)
					abort();
			age_reader_free(&a);
		}
		close(fd);
	}
	return 0;
}
