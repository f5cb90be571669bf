/* sockproto.h: the request and ack the kernel exchanges on the coredump socket (@@) before it dumps. */
#ifndef CORESINK_SOCKPROTO_H
#define CORESINK_SOCKPROTO_H

#include <stdint.h>

#include "uapi.h"

int sockproto_request(int fd, struct coredump_req *req);
int sockproto_ack(int fd, uint64_t mask, uint32_t *mark);
const char *sockproto_mark_to_string(uint32_t mark);

#endif
