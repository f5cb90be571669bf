/* io.h: the one place for EINTR retries and partial transfers. */
#ifndef CORESINK_IO_H
#define CORESINK_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

ssize_t io_read_full(int fd, void *buf, size_t len, unsigned long *calls);
ssize_t io_pread_full(int fd, void *buf, size_t len, off_t off);
ssize_t io_read_record(int fd, void *buf, size_t len);
int io_write_full(int fd, const void *buf, size_t len);
int io_writev_full(int fd, struct iovec *iov, int n);
int io_pwrite_full(int fd, const void *buf, size_t len, off_t off);
ssize_t io_splice(int in, int out, size_t len, unsigned int flags);
int io_splice_all(int in, int out, size_t len, size_t *moved, unsigned long *calls);
int io_wait_readable(int fd, int timeout_ms);
ssize_t io_read_full_within(int fd, void *buf, size_t len, int silence_ms, unsigned long *calls, bool *silent);
ssize_t io_read_within(int fd, void *buf, size_t len, int timeout_ms);
int io_pipe_is_full(int wfd);
int io_set_pipe_size(int fd, size_t want, size_t floor);
int io_vmsplice_full(int wfd, const void *buf, size_t len);
int io_sendfile_all(int out, int in, uint64_t len);
int io_sendfile_range(int out, int in, off_t off, off_t end);
int io_waitpid(pid_t pid, int *status);
int io_wait_ended(pid_t pid);
int io_run_within(int (*fn)(void *), void *arg, int timeout_ms);
struct msghdr;
int io_send_within(int fd, const struct msghdr *msg, int timeout_ms);

int io_fdatasync(int fd);
#define IO_ANY_OWNER ((uid_t)-1)

int io_open_host(const char *root, const char *path);
int io_file_of(const char *path, uid_t owner);
int io_read_text(const char *path, char *buf, size_t size);
int io_read_text_fd(int fd, char *buf, size_t size);
int io_write_text(const char *path, const char *text, size_t len);
struct sockaddr_un;
int io_unix_socket(const char *path, int type, struct sockaddr_un *sa);

#endif
