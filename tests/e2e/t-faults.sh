#!/bin/bash
# Single syscall failures in a real pipe-mode capture, injected by strace (--inject) around the real handler, which
# kernel.core_pattern starts through a wrapper. After each: exactly one entry that says what came of the crash, a
# stored core only when whole and synced, no file otherwise, nothing half-made, and the next crash stored normally.
#   fdatasync EIO (the data may never reach the disk): failed at "syncing the file to disk", no file;
#   fstatfs EIO after the first check: the capture goes on under the free space it last read, less its own
#   bytes since (what it trusts anyway on file systems that report late): stored whole.
# Then a sweep, SYSCALL ERRNO CALL (the 1st call, the 2nd, or every one from the 2nd on), each checked the same way:
# one entry (the kernel log's, where journald's socket is what fails), stored = whole, truncated = a file, anything
# else = no file; no stray file; the process let go within 30 s; the next crash stored whole; the ledger's count of
# stored bytes what the directory holds. A short list here; FAULTS=all (make fault-sweep) runs the whole table,
# FAULTS_LIST="SYSCALL ERRNO CALL" the ones it names, and FAULTS_TABLE=FILE writes it.
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
# inject SYSCALL SPEC: the next handler fails SYSCALL as SPEC says (strace's inject=SYSCALL:SPEC). A handler that
# would hold the crashed process for good is killed at 60 s (the row then says how long it was held).
HANDLER=${pattern%% *}
HANDLER=${HANDLER#|}
inject() {
	printf '#!/bin/sh\nexec timeout -s KILL 60 strace -f -qq -o /dev/null -e trace=%s -e inject=%s:%s %s "$@"\n' \
		"$1" "$1" "$2" "$HANDLER" > "$T/h"
	chmod 0755 "$T/h"
}
# The dynamic loader makes calls of its own before coresink's main (openat, read, mmap of each library): a fault
# there is not coresink's to handle. The handler's calls are counted from its first own call (umask, in main): the
# calls of each syscall before it, in a run without a fault, are added to the call a fault is aimed at.
declare -A OFF=()
count_loader_calls() {
	printf '#!/bin/sh\nexec strace -f -qq -o %s %s "$@"\n' "$T/base.log" "$HANDLER" > "$T/h"
	chmod 0755 "$T/h"
	crash 4
	for _ in $(seq 50); do [ -s "$T/base.log" ] && break; sleep 0.1; done
	while read -r sc n; do OFF[$sc]=$n; done < <(awk 'NR == 1 { pid = $1 } $1 == pid && /^[0-9]+ +umask\(/ { exit }
		$1 == pid { sub(/\(.*/, "", $2); n[$2]++ } END { for (s in n) print s, n[s] }' "$T/base.log")
	rm -f "$T/cores"/core.*
}
# aim WHEN: WHEN (N, or N+ for every call from the Nth) counted from main, as strace counts it for SYSCALL ($1).
aim() {
	local off=${OFF[$1]:-0} n=${2%+}
	echo "$((n + off))${2#$n}"
}
# after WHAT: the last crash had one entry, and the next crash, without a fault (strace still around it), is stored
# whole.
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

# whole CORE MIB: CORE (compressed or not) holds the crasher's MIB of pattern.
whole() {
	case $1 in
	*.zst) zstd -dcq "$1" > "$T/raw" 2>/dev/null && "$PATCHECK" "$T/raw" "$2" > /dev/null 2>&1 ;;
	*) "$PATCHECK" "$1" "$2" > /dev/null 2>&1 ;;
	esac
}

# sweep_one SYSCALL ERRNO WHEN: one crash with that fault, its outcome and the checks; prints a row of the table.
sweep_one() {
	local sc=$1 err=$2 when=$3 e res core step t0 t1 n bad="" sum led
	rm -f "$T/cores"/core.*
	inject "$sc" "error=$err:when=$(aim "$sc" "$when")"
	kmsg_mark
	t0=$(date +%s%N)
	crash_run "$CRASHER" 8
	t1=$(date +%s%N)
	if e=$(journal_entry "$CRASH_PID"); then
		n=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$CRASH_PID" | grep -c '^Process ')
		res=$(field "$e" CORESINK_RESULT) core=$(field "$e" COREDUMP_FILENAME) step=$(field "$e" CORESINK_ERROR)
	else
		# journald's socket failed: the entry went to the kernel log, in one line.
		e=$(kmsg_since | grep "^coresink.*Process $CRASH_PID " | grep -v 'processing\.\.\.$')
		n=$(printf '%s' "$e" | grep -c .)
		res="kernel log" core="" step=""
		core=$(printf '%s' "$e" | sed -n 's/.* bytes stored in \(\/[^ ]*\)\.\( .*\)\{0,1\}$/\1/p' | head -n 1)
		[ -n "$core" ] && res="stored (kernel log)"
		[ "$n" -ge 1 ] || n=0
	fi
	[ "$n" -eq 1 ] || bad="$bad $n entries;"
	case $res in
	stored*) whole "$core" 8 || bad="$bad stored but not whole;" ;;
	truncated) [ -f "$core" ] || bad="$bad truncated without its file;" ;;
	*) [ -z "$(entries "$T/cores")" ] || bad="$bad a file left: $(entries "$T/cores" | tr '\n' ' ');" ;;
	esac
	[ -z "$(entries "$T/cores" | grep -vE '^core\.crasher\.[0-9]+\.[0-9TZ]+(\.[0-9]+)?$')" ] || bad="$bad a stray file;"
	# A config that could not be read: the defaults (Directory=/var/lib/coresink, compressed) took the core.
	case $core in "$T/cores/"*|"") ;; *) res="$res (config unread: defaults)"; rm -f "$core" ;; esac
	[ $(( (t1 - t0) / 1000000 )) -lt 30000 ] || bad="$bad held $(( (t1 - t0) / 1000000 )) ms;"
	inject fdatasync 'error=EIO:when=1000'
	crash 4
	e=$(journal_entry "$CRASH_PID") && "$PATCHECK" "$(field "$e" COREDUMP_FILENAME)" 4 > /dev/null 2>&1 ||
		bad="$bad the next crash not stored;"
	sum=$(find "$T/cores" -maxdepth 1 -name 'core.*' -printf '%b\n' | awk '{ s += $1 * 512 } END { print s + 0 }')
	led=$(awk '$1 == "published" { print $2 }' "$T/cores/.coresink.state")
	[ "$sum" = "$led" ] || bad="$bad ledger $led against $sum on disk;"
	[ -n "$bad" ] && [ -n "${FAULTS_KEEP:-}" ] && cp -a "$T/cores" "$FAULTS_KEEP/$sc.$err.$when" 2>/dev/null
	printf '| %s | %s | %s | %s%s | %s |\n' "$sc" "$err" "${when/1000/-}" "$res" "${step:+: $step}" "${bad:-ok}" |
		tee -a "$T/table"
	[ -z "$bad" ]
}

QUICK="read EINTR 2
read EIO 2
write EIO 2
write ENOSPC 2+
fallocate ENOSPC 1
ftruncate EIO 1
fdatasync EIO 1
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
	for err in "$@"; do for when in 1 2 2+; do ALL="$ALL$sc $err $when
"; done; done
done
[ "${FAULTS:-}" = all ] && list=$ALL || list=${FAULTS_LIST:-$QUICK}
count_loader_calls
: > "$T/table"
fails=0 runs=0
while read -r sc err when; do
	[ -n "$sc" ] || continue
	runs=$((runs + 1))
	sweep_one "$sc" "$err" "$when" || fails=$((fails + 1))
done <<< "$list"
[ -n "${FAULTS_TABLE:-}" ] && cp "$T/table" "$FAULTS_TABLE"
check "the sweep: $runs injections, $fails with a broken promise" test "$fails" -eq 0
