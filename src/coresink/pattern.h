/* pattern.h: the lines coresink writes into kernel.core_pattern, and the switch between its two modes. */
#ifndef CORESINK_PATTERN_H
#define CORESINK_PATTERN_H

#include <stdbool.h>

int pattern_print_pipe(const char *config, const char *handler);
int pattern_print_socket(const char *config, bool named);
int pattern_set_mode(const char *config, bool named, bool socket);

#endif
