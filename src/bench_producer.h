/* bench_producer.h: coresink-bench's data: what a producer writes into the pipe, and its checksum. */
#ifndef CORESINK_BENCH_PRODUCER_H
#define CORESINK_BENCH_PRODUCER_H

#include <stdint.h>
#include <sys/types.h>

enum data_kind { DATA_RANDOM, DATA_ZEROS, DATA_CORE };
enum write_mode { WRITE_4K, WRITE_1M, WRITE_VMSPLICE };

int data_kind_from_string(const char *s);
int write_mode_from_string(const char *s);
int data_prepare(enum data_kind kind);
pid_t producer_start(const int p[2], uint64_t bytes, enum write_mode mode);
uint64_t checksum_expected(uint64_t bytes);
int checksum_file(int fd, uint64_t *sum, uint64_t *size);

#endif
