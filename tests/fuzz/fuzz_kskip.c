/* fuzz_kskip.c: libFuzzer harness for the parser of the kernel's log records (the crashes it dropped). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One record of /dev/kmsg, any bytes: a dropped crash's pid is positive and its comm a string that fits. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kskip_record r;

	if (kskip_parse((const char *)data, size, &r) == KSKIP_DROPPED &&
	    (r.pid < 0 || strnlen(r.comm, sizeof(r.comm)) >= sizeof(r.comm)))
		abort();
	return 0;
}
