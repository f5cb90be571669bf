/* journal.h: sending one structured entry to journald, or to the kernel log when journald is not there. */
#ifndef CORESINK_JOURNAL_H
#define CORESINK_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define FIELDS_MAX 96

/* The fields of one entry, each "NAME=value"; values may hold any byte. */
struct fields {
	struct iovec iov[FIELDS_MAX];
	size_t n;
	int priority;
	const char *message;   /* points into iov, for the kernel-log fallback */
};

void fields_init(struct fields *f, int priority);
void fields_add(struct fields *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fields_free(struct fields *f);
int journal_send(struct fields *f);
int journal_send_as(struct fields *f, uid_t uid, gid_t gid);
int journal_send_file(struct fields *f, const char *name, int fd, uint64_t len, uid_t uid, gid_t gid);
int journal_is_stderr(void);
bool journal_listening(void);
int journal_find(const char *match, const char *and_match, unsigned timeout_ms);
int kmsg_find_entry(pid_t handler, pid_t pid);

void journal_test_redirect(const char *socket, const char *kmsg);

#endif
