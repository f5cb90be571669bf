/* store.h: where cores are written and how they are published. */
#ifndef CORESINK_STORE_H
#define CORESINK_STORE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct store_file {
	int dirfd;
	int fd;
	char tmpname[64];   /* empty for an O_TMPFILE, else the hidden name it was written under */
};

bool store_root_only(const struct stat *st);
int store_root_dir(int fd);
int store_open_dir(const char *path);
int store_create(int dirfd, mode_t mode, struct store_file *f);
int store_publish(struct store_file *f, const char *comm, pid_t pid, uint64_t time, bool compressed, bool encrypted,
		  char *name, size_t len);
void store_discard(struct store_file *f);

#endif
