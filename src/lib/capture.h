/* capture.h: kernel mode: one crash, from the kernel's arguments to its one journal entry. */
#ifndef CORESINK_CAPTURE_H
#define CORESINK_CAPTURE_H

#include <stdbool.h>

int capture_run(const char *config, bool named, int argc, char **argv);

#endif
