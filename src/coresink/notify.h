/* notify.h: NotifyDirectory=, the notifiers told of a crash (notify.c). */
#ifndef CORESINK_NOTIFY_H
#define CORESINK_NOTIFY_H

#include <stdbool.h>

void notify_after(const char *config, bool named, const char *entry, const char *netdoor);
void notify_here(const char *config, bool named, const char *entry);

#endif
