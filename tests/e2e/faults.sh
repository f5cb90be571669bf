# faults.sh, sourced by t-faults.sh and t-kills.sh: a real pipe-mode handler in kernel.core_pattern, run through a
# wrapper ($T/h) that puts strace around it, and what both sweeps check after each fault.
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v strace >/dev/null || skip "no strace"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
# The pattern, as coresink gives it, with the handler replaced by $T/h, which runs it under strace.
pattern=$("$CORESINK" --config "$T/c.conf" --core-pattern)
printf '|%s %s\n' "$T/h" "${pattern#* }" > /proc/sys/kernel/core_pattern || fail "core_pattern"
HANDLER=${pattern%% *}
HANDLER=${HANDLER#|}
# wrap ARGS: the next handler runs under strace ARGS. One that would hold the crashed process for good is killed at
# 60 s (its row then says how long the process was held).
wrap() {
	printf '#!/bin/sh\nexec timeout -s KILL 60 strace -qq %s %s "$@"\n' "$1" "$HANDLER" > "$T/h"
	chmod 0755 "$T/h"
}
# inject SYSCALL SPEC: the next handler fails SYSCALL as SPEC says (strace's inject=SYSCALL:SPEC).
inject() { wrap "-f -o /dev/null -e trace=$1 -e inject=$1:$2"; }

# The dynamic loader makes calls of its own before coresink's main (openat, read, mmap of each library): a fault
# there is not coresink's to handle. The handler's calls are counted from its first own call (umask, in main): the
# calls of each syscall before it, in a run without a fault, are added to the call a fault is aimed at.
declare -A OFF=()
count_loader_calls() {
	wrap "-f -o $T/base.log"
	crash 4
	for _ in $(seq 50); do [ -s "$T/base.log" ] && break; sleep 0.1; done
	while read -r sc n; do OFF[$sc]=$n; done < <(awk 'NR == 1 { pid = $1 } $1 == pid && /^[0-9]+ +umask\(/ { exit }
		$1 == pid { sub(/\(.*/, "", $2); n[$2]++ } END { for (s in n) print s, n[s] }' "$T/base.log")
	rm -f "$T/cores"/core.*
}
# aim SYSCALL WHEN: WHEN (N, or N+ for every call from the Nth) counted from main, as strace counts SYSCALL.
aim() {
	local off=${OFF[$1]:-0} n=${2%+}
	echo "$((n + off))${2#$n}"
}

# whole CORE MIB: CORE (compressed or not) holds the crasher's MIB of pattern.
whole() {
	case $1 in
	*.zst) zstd -dcq "$1" > "$T/raw" 2>/dev/null && "$PATCHECK" "$T/raw" "$2" > /dev/null 2>&1 ;;
	*) "$PATCHECK" "$1" "$2" > /dev/null 2>&1 ;;
	esac
}

# outcome: the last crash's entries (N), and of the one, its entry (E), RESULT, CORE and failed STEP. Where
# journald's socket is what failed, the entry went to the kernel log, in one line.
outcome() {
	if E=$(journal_entry "$CRASH_PID"); then
		N=$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$CRASH_PID" | grep -c '^Process ')
		RESULT=$(field "$E" CORESINK_RESULT) CORE=$(field "$E" COREDUMP_FILENAME) STEP=$(field "$E" CORESINK_ERROR)
		return
	fi
	E=$(kmsg_since | grep "^coresink.*Process $CRASH_PID " | grep -v 'processing\.\.\.$')
	N=$(printf '%s' "$E" | grep -c .)
	STEP=""
	CORE=$(printf '%s' "$E" | sed -n 's/.* bytes stored in \(\/[^ ]*\)\.\( .*\)\{0,1\}$/\1/p' | head -n 1)
	[ -n "$CORE" ] && RESULT="stored (kernel log)" || RESULT="kernel log"
}

# next_crash: the next crash, strace still around the handler but no fault, is stored whole, and the ledger's count
# of stored bytes is what the directory holds; prints what broke, if anything (run it in $(...)).
next_crash() {
	local sum led
	wrap "-f -o /dev/null"
	crash 4
	outcome
	[ "$RESULT" = stored ] && whole "$CORE" 4 || printf ' the next crash not stored;'
	settled || printf ' a handler still in the ledger after 10 s;'
	sum=$(find "$T/cores" -maxdepth 1 -name 'core.*' -printf '%b\n' | awk '{ s += $1 * 512 } END { print s + 0 }')
	led=$(awk '$1 == "published" { print $2 }' "$T/cores/.coresink.state")
	[ "$sum" = "$led" ] || printf ' ledger %s against %s on disk;' "$led" "$sum"
}

# settled: waits (up to 10 s) until no capture is in flight: every handler's record has left the ledger.
settled() {
	for _ in $(seq 100); do
		grep -q '^inflight ' "$T/cores/.coresink.state" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# stray: the directory's names that are no core's (a temporary file under a name, a half-made anything).
stray() { entries "$T/cores" | grep -vE '^core\.crasher\.[0-9]+\.[0-9TZ]+(\.[0-9]+)?$'; }

