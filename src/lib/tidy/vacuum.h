/* vacuum.h: the cores coresink stored in the directory, and the removal of the oldest. */
#ifndef CORESINK_VACUUM_H
#define CORESINK_VACUUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <time.h>

#include "base.h"
#include "store.h"

/* A core of coresink's in the directory: its name, when it was last written, what it takes on disk (oldest.h). */
struct vacuum_core {
	struct oldest o;
	ino_t ino;
	uid_t uid;   /* whose crash it was, where asked (mine_first) */
};

/* Whose capture makes room, and the bytes of stored cores past which it makes room from its own alone. */
struct vacuum_share {
	uid_t uid;
	uint64_t bytes;
};

bool vacuum_is_core(const char *name);
int vacuum_list(int dirfd, struct vacuum_core **list);
int vacuum_remove(int dirfd, const char *name, const uint64_t *held, size_t n_held, uint64_t *freed, bool *unsent);
int vacuum_total(int dirfd, uint64_t *bytes);
int vacuum_name_of_crash(int dirfd, pid_t pid, uint64_t time, char *name, size_t len);
int vacuum_oldest(int dirfd, uint64_t need, const uint64_t *held, size_t n_held, const struct vacuum_share *share,
		  uint64_t *freed, unsigned *removed, unsigned *unsent);

#endif
