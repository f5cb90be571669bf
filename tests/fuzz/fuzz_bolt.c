/* fuzz_bolt.c: libFuzzer harness for the BoltDB reader (base/boltread.c), the input a database file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

/* A meta page's checksum made right, so that the input reaches the pages beneath (a fuzzer cannot forge FNV-1a). */
static void sum(uint8_t *p, size_t size, size_t off)
{
	uint64_t h = 14695981039346656037ull;

	if (off + 16 + 64 > size)
		return;
	for (size_t i = 0; i < 56; i++)
		h = (h ^ p[off + 16 + i]) * 1099511628211ull;
	memcpy(p + off + 16 + 56, &h, sizeof(h));
}

static void each(const char *key, size_t klen, const char *value, size_t vlen, void *arg)
{
	size_t *total = arg;

	if (!key) {
		*total = 0;
		return;
	}
	/* Every byte given is read: an overrun shows under ASan. */
	for (size_t i = 0; i < klen; i++)
		*total += (unsigned char)key[i];
	for (size_t i = 0; i < vlen; i++)
		*total += (unsigned char)value[i];
}

/* The paths podman's and containerd's readers walk, and every bucket on the way. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "v1", "k8s.io", "containers", "0123", "extensions" };
	static const char *const pod[] = { "pod", "ff00" };
	uint8_t *copy = malloc(size + 1);
	size_t total = 0, len;
	char *v;
	int fd = memfd_create("bolt", MFD_CLOEXEC);
	uint32_t ps = 4096;

	if (!copy || fd < 0)
		abort();
	memcpy(copy, data, size);
	sum(copy, size, 0);
	if (size >= 32)
		memcpy(&ps, copy + 16 + 8, sizeof(ps));
	if (ps >= 512 && ps <= 65536)
		sum(copy, size, ps);
	if (write(fd, copy, size) != (ssize_t)size)
		abort();
	for (size_t d = 0; d <= 5; d++) {
		if (bolt_get(fd, (struct bolt_path) { names, d }, "io.cri-containerd.sandbox.metadata", &v, &len) == 0) {
			if (v[len] != '\0')
				abort();
			free(v);
		}
		(void) bolt_each(fd, (struct bolt_path) { names, d }, each, &total);
	}
	for (size_t d = 0; d <= 2; d++)
		if (bolt_get(fd, (struct bolt_path) { pod, d }, "config", &v, &len) == 0)
			free(v);
	(void) close(fd);
	free(copy);
	sink = total;
	return 0;
}
