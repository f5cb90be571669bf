/* show.h: coresinkctl list and info, in coredumpctl's columns and fields, as text or JSON. */
#ifndef CORESINK_ADMIN_SHOW_H
#define CORESINK_ADMIN_SHOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "entries.h"
#include "inflight.h"

enum json_mode { JSON_OFF, JSON_SHORT, JSON_PRETTY };

void show_list(FILE *f, const struct found *found, int dirfd, const struct captures_now *now, bool legend,
	       enum json_mode json);
void show_record_json(FILE *f, const struct record *c, int dirfd, bool pretty);
void show_info(FILE *f, const struct found *found, int dirfd, enum json_mode json);
void show_size(uint64_t bytes, char *buf, size_t len);

#endif
