/* capture.h: one crash, from what the kernel says of it (pipe or socket mode) to its one journal entry. */
#ifndef CORESINK_CAPTURE_H
#define CORESINK_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

int capture_run(const char *config, bool named, int argc, char **argv);
int capture_socket(const char *config, bool named, int conn, uint64_t time);

#endif
