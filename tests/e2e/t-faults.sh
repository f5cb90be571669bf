#!/bin/bash
# Single syscall failures in a real pipe-mode capture, injected by strace (--inject) around the real handler, which
# kernel.core_pattern starts through a wrapper. After each: exactly one entry that says what came of the crash, a
# stored core only when whole and synced, no file otherwise, nothing half-made, and the next crash stored normally.
#   fdatasync EIO (the data may never reach the disk): failed at "syncing the file to disk", no file;
#   fstatfs EIO after the first check: the capture goes on under the free space it last read, less its own
#   bytes since (what it trusts anyway on file systems that report late): stored whole.
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v strace >/dev/null || skip "no strace"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
# The pattern, as coresink gives it, with the handler replaced by $T/h: strace with INJECT around it.
pattern=$("$CORESINK" --config "$T/c.conf" --core-pattern)
printf '|%s %s\n' "$T/h" "${pattern#* }" > /proc/sys/kernel/core_pattern || fail "core_pattern"
# inject SYSCALL SPEC: the next handler fails SYSCALL as SPEC says (strace's inject=SYSCALL:SPEC).
HANDLER=${pattern%% *}
HANDLER=${HANDLER#|}
inject() {
	printf '#!/bin/sh\nexec strace -f -qq -o /dev/null -e trace=%s -e inject=%s:%s %s "$@"\n' "$1" "$1" "$2" \
		"$HANDLER" > "$T/h"
	chmod 0755 "$T/h"
}
# after WHAT: the last crash had one entry, and the next crash, without a fault, is stored whole.
after() {
	check "$1: one entry" test "$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$CRASH_PID" | grep -c '^Process ')" -eq 1
	inject fdatasync 'error=EIO:when=1000'
	crash 4
	e=$(journal_entry "$CRASH_PID") || fail "$1: no entry for the next crash"
	check "$1: the next crash is stored whole" "$PATCHECK" "$(field "$e" COREDUMP_FILENAME)" 4
	rm -f "$T/cores"/core.*
}

inject fdatasync 'error=EIO:when=1'
crash 16
e=$(journal_entry "$CRASH_PID") || fail "fdatasync EIO: no entry"
check "fdatasync EIO: failed, and says where: $(field "$e" CORESINK_ERROR)" all_of "$e" "CORESINK_RESULT=failed" \
	"CORESINK_ERROR=syncing the file to disk: Input/output error"
check "fdatasync EIO: no file" test -z "$(entries "$T/cores")"
after "fdatasync EIO"

inject fstatfs 'error=EIO:when=3+'
crash 64
e=$(journal_entry "$CRASH_PID") || fail "fstatfs EIO: no entry"
check "fstatfs EIO from the 3rd call on: stored all the same ($(field "$e" CORESINK_RESULT))" has_line "$e" \
	"CORESINK_RESULT=stored"
check "fstatfs EIO: whole" "$PATCHECK" "$(field "$e" COREDUMP_FILENAME)" 64
check "fstatfs EIO: and the entry says what it went on: $(field "$e" CORESINK_STATFS_ERROR)" matches "$e" \
	"^CORESINK_STATFS_ERROR=Input/output error"
after "fstatfs EIO"
