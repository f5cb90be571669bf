/*
 * hooks.c: what the collect hooks said of a crash, in its entry: each KEY=VALUE line a hook printed as the field
 * CORESINK_HOOK_KEY (its value escaped and bounded by collect.c), the list of those keys as CORESINK_HOOKS
 * (which a seal of version 3 covers with every field it names: origin.c), and what came of each hook, or why none
 * ran, as CORESINK_COLLECT.
 */
#include <string.h>

#include "outcome.h"
#include "report-internal.h"

void report_hook_fields(struct fields *f, const struct outcome *o)
{
	char keys[COLLECT_FIELDS_MAX * (COLLECT_KEY_MAX + 1) + 1] = "";
	size_t at = 0;

	if (o->collect[0])
		fields_add(f, "CORESINK_COLLECT=%s", o->collect);
	for (const char *l = o->hook_fields; l && *l;) {
		const char *nl = strchr(l, '\n'), *eq = strchr(l, '=');
		int n = nl ? (int)(nl - l) : (int)strlen(l);

		if (eq && eq < l + n) {
			fields_add(f, COLLECT_FIELD_PREFIX "%.*s", n, l);
			if (at + (size_t)(eq - l) + 2 < sizeof(keys))
				at += (size_t)snprintf(keys + at, sizeof(keys) - at, "%s%.*s", at ? " " : "", (int)(eq - l), l);
		}
		l = nl ? nl + 1 : l + n;
	}
	if (at)
		fields_add(f, "CORESINK_HOOKS=%s", keys);
}
