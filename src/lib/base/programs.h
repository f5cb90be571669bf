/* programs.h: where coresink's programs are, for one to run another (programs.c). */
#ifndef CORESINK_PROGRAMS_H
#define CORESINK_PROGRAMS_H

#include <stddef.h>

int program_path(const char *name, char *buf, size_t len);

#endif
