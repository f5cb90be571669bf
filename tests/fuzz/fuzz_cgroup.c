/* fuzz_cgroup.c: libFuzzer harness for the parsers of a crashed process's cgroup (its units, its container). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "intake.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* /proc/PID/cgroup text, any bytes a cgroup name may hold: every name found is a terminated string that fits. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	const char *path;
	struct container c;
	struct units u;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	path = cgroup_path(text);
	cgroup_units(path ? path : text, &u);
	cgroup_container(path ? path : text, &c);
	if (strnlen(u.unit, sizeof(u.unit)) >= sizeof(u.unit) || strnlen(c.machine, sizeof(c.machine)) >= sizeof(c.machine) ||
	    strnlen(c.runtime, sizeof(c.runtime)) >= sizeof(c.runtime) || strnlen(c.id, sizeof(c.id)) >= sizeof(c.id) ||
	    strnlen(c.pod, sizeof(c.pod)) >= sizeof(c.pod) || strnlen(c.ns, sizeof(c.ns)) >= sizeof(c.ns) ||
	    strchr(c.id, '/') || (c.ns[0] && (!c.id[0] || c.ns[0] == '.' || c.id[0] == '.')))
		abort();
	free(text);
	return 0;
}
