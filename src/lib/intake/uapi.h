/*
 * uapi.h: the few kernel interfaces of socket mode that Debian 12's headers predate, defined here once, as the
 * kernel defines them. Sources: include/uapi/linux/coredump.h (Linux 6.16 for the socket, 6.17 for the request
 * and ack), include/uapi/linux/pidfd.h (PIDFD_GET_INFO 6.13, PIDFD_INFO_COREDUMP 6.16), include/uapi/asm-generic/
 * socket.h (SO_PEERPIDFD 6.5). The layouts are ABI: they only ever grow at the end, sized by their first field.
 */
#ifndef CORESINK_UAPI_H
#define CORESINK_UAPI_H

#include <stdint.h>
#include <sys/ioctl.h>

/* coredump_{req,ack} mask bits. Exactly one of KERNEL, USERSPACE and REJECT in an ack. */
#define COREDUMP_KERNEL    (1ULL << 0)   /* the kernel writes the core into the socket */
#define COREDUMP_USERSPACE (1ULL << 1)   /* the server takes the core itself */
#define COREDUMP_REJECT    (1ULL << 2)   /* no core at all */
#define COREDUMP_WAIT      (1ULL << 3)   /* the task is held until the server closes the connection */
#define COREDUMP_KNOWN (COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT | COREDUMP_WAIT)

/* What the kernel sends on connect: its own size, the ack size it knows, and the mask bits it supports. */
struct coredump_req {
	uint32_t size;
	uint32_t size_ack;
	uint64_t mask;
};
#define COREDUMP_REQ_SIZE_VER0 16u

/* The server's answer. */
struct coredump_ack {
	uint32_t size;
	uint32_t spare;
	uint64_t mask;
};
#define COREDUMP_ACK_SIZE_VER0 16u

/* The 4-byte mark the kernel sends after reading the ack: REQACK accepted it, anything else says why not. */
enum coredump_mark {
	COREDUMP_MARK_REQACK = 0,
	COREDUMP_MARK_MINSIZE = 1,
	COREDUMP_MARK_MAXSIZE = 2,
	COREDUMP_MARK_UNSUPPORTED = 3,
	COREDUMP_MARK_CONFLICTING = 4,
	_COREDUMP_MARK_MAX
};

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

#define PIDFD_INFO_PID      (1ULL << 0)   /* pid, tgid, ppid and the credentials */
#define PIDFD_INFO_CREDS    (1ULL << 1)
#define PIDFD_INFO_EXIT     (1ULL << 3)   /* exit_code, once the task has exited */
#define PIDFD_INFO_COREDUMP (1ULL << 4)   /* coredump_mask, once the task is dumping */

/* pidfd_info.coredump_mask */
#define PIDFD_COREDUMPED     (1U << 0)   /* the task is dumping (or did) */
#define PIDFD_COREDUMP_SKIP  (1U << 1)   /* not dumpable: no core */
#define PIDFD_COREDUMP_USER  (1U << 2)   /* dumpable by its owner: suid_dumpable mode 1 */
#define PIDFD_COREDUMP_ROOT  (1U << 3)   /* dumped as root: mode 2 */

struct pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid;
	uint32_t ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
	uint32_t coredump_mask;
	uint32_t spare1;
};

#define PIDFS_IOCTL_MAGIC 0xFF
#define PIDFD_GET_INFO _IOWR(PIDFS_IOCTL_MAGIC, 11, struct pidfd_info)

_Static_assert(sizeof(struct coredump_req) == COREDUMP_REQ_SIZE_VER0, "coredump_req VER0");
_Static_assert(sizeof(struct coredump_ack) == COREDUMP_ACK_SIZE_VER0, "coredump_ack VER0");
/*
 * The request is 72 bytes (the size is in PIDFD_GET_INFO's number): the kernel copies the first 72 of its own,
 * longer struct (6.19: coredump_signal where spare1 is, supported_mask at 72; 7.1: coredump_code at 72 and
 * supported_mask at 80), so the fields read here keep their offsets on every kernel since 6.16.
 */
_Static_assert(sizeof(struct pidfd_info) == 72, "pidfd_info as of Linux 6.16");
_Static_assert(__builtin_offsetof(struct pidfd_info, pid) == 16, "pidfd_info.pid");
_Static_assert(__builtin_offsetof(struct pidfd_info, ruid) == 28, "pidfd_info.ruid");
_Static_assert(__builtin_offsetof(struct pidfd_info, exit_code) == 60, "pidfd_info.exit_code");
_Static_assert(__builtin_offsetof(struct pidfd_info, coredump_mask) == 64, "pidfd_info.coredump_mask");

#endif
