/* serve.h: coresink --serve, the server of the kernel's coredump socket. */
#ifndef CORESINK_SERVE_H
#define CORESINK_SERVE_H

#include <stdbool.h>

int serve_main(const char *config, bool named);

#endif
