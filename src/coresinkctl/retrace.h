/* retrace.h: coresinkctl retrace: a stored crash analysed again, as a new entry (retrace.c). */
#ifndef CORESINK_ADMIN_RETRACE_H
#define CORESINK_ADMIN_RETRACE_H

#include <stdbool.h>

#include "admin.h"

int retrace_main(const char *config, bool named, const struct selection *base, int argc, char **argv);

#endif
