/* checkconfig.h: coresinkctl check-config: the effective configuration, its rules, and which rule a crash gets. */
#ifndef CORESINK_CHECKCONFIG_H
#define CORESINK_CHECKCONFIG_H

#include <stdbool.h>

int check_config(const char *path, bool named, int argc, char **argv);

#endif
