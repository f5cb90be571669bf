#!/bin/bash
# Single syscall failures in a real capture, injected by strace (--inject) around the real handler, which
# kernel.core_pattern starts through a wrapper (faults.sh); in socket mode (t-faults-socket.sh), into each crash's
# process of the real server. After each: exactly one entry that says what came of the
# crash, a stored core only when whole and synced, no file otherwise, nothing half-made, and the next crash stored
# normally.
# Two with checks of their own:
#   fdatasync EIO (the data may never reach the disk): failed at "syncing the file to disk", no file;
#   fstatfs EIO after the first check: the capture goes on under the free space it last read, less its own
#   bytes since (what it trusts anyway on file systems that report late): stored whole.
# Then the sweep, SYSCALL ERRNO CALL (the 1st call, the 2nd, the last one a faultless capture made, or every one from
# the 2nd on; a row says "not reached" where the call came fewer times), each checked the same way:
# one entry (the kernel log's, where journald's socket is what fails), stored = whole, truncated = a file, anything
# else = no file; no stray file; the process let go within 30 s; the next crash stored whole; the ledger's count of
# stored bytes what the directory holds. A short list here; FAULTS=all (make fault-sweep) runs the whole table,
# FAULTS_LIST="SYSCALL ERRNO CALL" the ones it names, and FAULTS_TABLE=FILE writes it.
# tier: all (make check-all only)
. "$(dirname "$0")/faults.sh"

# sweep_one SYSCALL ERRNO WHEN [MIB]: one crash (MIB, 8) with that fault, its outcome and the checks; prints a row
# of the table. Leaves the faulted crash's entry in E and what its directory held in FILES.
sweep_one() {
	local sc=$1 err=$2 when=$3 mib=${4:-8} t0 t1 bad="" at
	at=$(aim "$sc" "$when")
	if [ -z "$at" ]; then
		printf '| %s | %s | %s | never called | ok |\n' "$sc" "$err" "$when" | tee -a "$T/table"
		return 0
	fi
	rm -f "$T/cores"/core.* "$T/inject.log"
	[ -z "${PLANT:-}" ] || "$PLANT"
	inject "$sc" "error=$err:when=$at"
	kmsg_mark
	t0=$(date +%s%N)
	crash_run "$CRASHER" "$mib"
	t1=$(date +%s%N)
	outcome
	FILES=$(entries "$T/cores")
	[ "$N" -eq 1 ] || bad="$bad $N entries;"
	case $RESULT in
	stored*) whole "$CORE" "$mib" || bad="$bad stored but not whole;" ;;
	truncated) [ -f "$CORE" ] || bad="$bad truncated without its file;" ;;
	*) [ -z "$FILES" ] || bad="$bad a file left: $(printf '%s' "$FILES" | tr '\n' ' ');" ;;
	esac
	[ -z "$(stray)" ] || bad="$bad a stray file;"
	# A config that could not be read: the defaults (Directory=/var/lib/coresink, compressed) took the core.
	case $CORE in "$T/cores/"*|"") ;; *) RESULT="$RESULT (config unread: defaults)"; rm -f "$CORE" ;; esac
	# One failed call for a passing reason is not to cost the admin's config: it is read once more (a refusal,
	# EACCES, is no passing reason: the defaults, as documented).
	case $RESULT:$err:$when in *"(config unread"*:EINTR:1|*"(config unread"*:EAGAIN:1|*"(config unread"*:ENOMEM:1|\
		*"(config unread"*:EMFILE:1|*"(config unread"*:ENFILE:1|*"(config unread"*:EIO:1)
		bad="$bad one failure cost the config;" ;; esac
	[ $(( (t1 - t0) / 1000000 )) -lt 30000 ] || bad="$bad held $(( (t1 - t0) / 1000000 )) ms;"
	local faulted=$E row="$RESULT${STEP:+: $STEP}"
	# A call index past what this capture made (the counts of reads and writes vary with the pipe) injects nothing.
	grep -q '(INJECTED)' "$T/inject.log" 2>/dev/null || row="$row (not reached)"
	next_crash
	bad="$bad$NEXT_BAD"
	E=$faulted
	[ -n "$bad" ] && [ -n "${FAULTS_KEEP:-}" ] && cp -a "$T/cores" "$FAULTS_KEEP/$sc.$err.$when" 2>/dev/null
	printf '| %s | %s | %s | %s | %s |\n' "$sc" "$err" "$when" "$row" "${bad:-ok}" | tee -a "$T/table"
	[ -z "$bad" ]
}

count_calls
: > "$T/table"
fails=0 runs=0
# run_one SYSCALL ERRNO WHEN [MIB]: sweep_one, counted.
run_one() {
	runs=$((runs + 1))
	sweep_one "$@" || fails=$((fails + 1))
}

run_one fdatasync EIO 1 16
check "fdatasync EIO: failed, and says where: $(field "$E" CORESINK_ERROR)" all_of "$E" "CORESINK_RESULT=failed" \
	"CORESINK_ERROR=syncing the file to disk: Input/output error"
check "fdatasync EIO: no file" test -z "$FILES"

run_one fstatfs EIO 3+ 64
check "fstatfs EIO from the 3rd call on: stored all the same ($(field "$E" CORESINK_RESULT))" has_line "$E" \
	"CORESINK_RESULT=stored"
check "fstatfs EIO: whole" whole "$(field "$E" COREDUMP_FILENAME)" 64
check "fstatfs EIO: and the entry says what it went on: $(field "$E" CORESINK_STATFS_ERROR)" matches "$E" \
	"^CORESINK_STATFS_ERROR=Input/output error"

# A transient ENOSPC (the disk refused blocks where statfs showed room) with an old core in the directory: the old
# core makes room, as for the reserve, and the new one is stored whole.
old_core() {
	head -c 4M /dev/urandom > "$T/cores/core.crasher.1.20200101T000000Z"
	touch -d 2020-01-01 "$T/cores/core.crasher.1.20200101T000000Z"
}
PLANT=old_core run_one fallocate ENOSPC 1
check "fallocate ENOSPC, an old core there: stored all the same ($(field "$E" CORESINK_RESULT))" has_line "$E" \
	"CORESINK_RESULT=stored"
# Compressed as it comes, a chunk is not preallocated (its size is known only once written): on ext4 no fallocate
# reserves the core's blocks, and the fault falls on nothing the core needs room for.
case "${FAULTS_CONFIG:-}" in
*Compress=yes*) ;;
*) check "and the old core made room: $(field "$E" CORESINK_VACUUMED)" has_line "$E" "CORESINK_VACUUMED=1" ;;
esac

QUICK="read EINTR 2
read EIO 2
write EIO 2
write ENOSPC 2+
fallocate ENOSPC 1
fstatfs EIO last
ftruncate EIO 1
linkat EIO 1
fsetxattr ENOSPC 1
flock EINTR 1
openat EMFILE 2
sendmsg EAGAIN 1+
clone EAGAIN 1"
ALL=""
for spec in "read EIO EINTR" "write EIO ENOSPC EDQUOT EINTR" "splice EIO ENOSPC EINTR" "pread64 EIO" \
	"fallocate ENOSPC EDQUOT EIO EINTR EOPNOTSUPP" "ftruncate EIO EINTR EPERM" "fstatfs EIO EINTR" \
	"fdatasync EIO ENOSPC EDQUOT EINTR" "fsync EIO" "linkat EIO ENOSPC EDQUOT EEXIST" \
	"fsetxattr ENOSPC EDQUOT EIO EOPNOTSUPP" "fchown EIO EPERM" "fchmod EIO EPERM" "flock EINTR ENOLCK" \
	"openat EIO ENOMEM EMFILE EACCES" "sendmsg EAGAIN ENOBUFS" "clone EAGAIN ENOMEM" "unlinkat EIO EBUSY"; do
	set -- $spec
	sc=$1
	shift
	for err in "$@"; do for when in 1 2 last 2+; do ALL="$ALL$sc $err $when
"; done; done
done
[ "${FAULTS:-}" = all ] && list=$ALL || list=${FAULTS_LIST:-$QUICK}
while read -r sc err when; do
	[ -n "$sc" ] && run_one "$sc" "$err" "$when"
done <<< "$list"
[ -n "${FAULTS_TABLE:-}" ] && cp "$T/table" "$FAULTS_TABLE"
check "the sweep: $runs injections, $fails with a broken promise" test "$fails" -eq 0
