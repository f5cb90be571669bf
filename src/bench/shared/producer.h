/* producer.h: coresink-bench's data: what a producer writes into the pipe, and its checksum. */
#ifndef CORESINK_BENCH_PRODUCER_H
#define CORESINK_BENCH_PRODUCER_H

#include <stdint.h>
#include <sys/types.h>

enum data_kind { DATA_RANDOM, DATA_ZEROS, DATA_CORE, _DATA_KIND_MAX };
enum write_mode { WRITE_4K, WRITE_1M, WRITE_VMSPLICE, _WRITE_MODE_MAX };

const char *data_kind_to_string(enum data_kind k);
int data_kind_from_string(const char *s);
const char *write_mode_to_string(enum write_mode m);
int write_mode_from_string(const char *s);
int data_prepare(enum data_kind kind);
int producer_write(int wfd, uint64_t from, uint64_t to, enum write_mode mode);
pid_t producer_start(const int p[2], uint64_t bytes, enum write_mode mode);
int64_t producer_prefix(int fd);
uint64_t checksum_expected(uint64_t bytes);
int checksum_file(int fd, uint64_t *sum, uint64_t *size);

#endif
