/* capture.h: kernel mode: one crash, from the kernel's arguments to its one journal entry. */
#ifndef CORESINK_CAPTURE_H
#define CORESINK_CAPTURE_H

#include <stdbool.h>

#include "config.h"
#include "diag.h"

void load_config(struct config *c, const char *path, bool named, struct diag *d);
int capture_run(const char *config, bool named, int argc, char **argv);

#endif
