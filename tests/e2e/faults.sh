# faults.sh, sourced by t-faults.sh, t-faults-socket.sh and t-kills.sh: a real coresink under strace, which fails
# its calls as a sweep asks, and what the sweeps check after each fault. In pipe mode (FAULTS_MODE unset) the handler
# in kernel.core_pattern runs through a wrapper ($T/h) that puts strace around it; in socket mode (FAULTS_MODE=socket)
# strace is attached to the server, and follows each crash's process from its fork.
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v strace >/dev/null || skip "no strace"
MODE=${FAULTS_MODE:-pipe}
[ "$MODE" = pipe ] || need_socket_mode
scratch
# A fault that costs the config sends the core to the default Directory: it goes with the test, if the test made it.
[ -e /var/lib/coresink ] || at_exit "rm -rf /var/lib/coresink"
start_journald
# FAULTS_CONFIG: more lines for the config (t-faults-compress: Compress=yes and Encrypt=, the path of both).
# shellcheck disable=SC2086
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"Socket=$T/kernel.socket" ${FAULTS_CONFIG:-}
declare -A OFF=()

if [ "$MODE" = pipe ]; then
	use_handler "$T/c.conf"
	# The pattern, as coresink gives it, with the handler replaced by $T/h, which runs it under strace.
	pattern=$("$CORESINK" --config "$T/c.conf" --core-pattern)
	printf '|%s %s\n' "$T/h" "${pattern#* }" > /proc/sys/kernel/core_pattern || fail "core_pattern"
	HANDLER=${pattern%% *}
	HANDLER=${HANDLER#|}
fi

# wrap ARGS: the next handler runs under strace ARGS. One that would hold the crashed process for good is killed at
# 60 s (its row then says how long the process was held). Socket mode: strace ARGS is attached to the server anew
# (the server's own deadline, SocketTimeoutSec, kills a crash's process that holds on).
wrap() {
	if [ "$MODE" = socket ]; then
		attach "$1"
		return
	fi
	printf '#!/bin/sh\nexec timeout -s KILL 60 strace -qq %s %s "$@"\n' "$1" "$HANDLER" > "$T/h"
	chmod 0755 "$T/h"
}
# inject SYSCALL SPEC: the next handler fails SYSCALL as SPEC says (strace's inject=SYSCALL:SPEC); $T/inject.log
# then shows whether it did ("(INJECTED)").
inject() { wrap "-f -o $T/inject.log -e trace=$1 -e inject=$1:$2"; }

# attach ARGS: socket mode's strace ARGS (unquoted: words without spaces) on the server, once the last one has
# detached (SIGTERM: strace lets go of what it attached to); returns once the server is traced.
TRACER=""
attach() {
	detach
	# shellcheck disable=SC2086
	strace -qq $1 -p "$SERVER_PID" > /dev/null 2>&1 &
	TRACER=$!
	for _ in $(seq 200); do
		grep -q "^TracerPid:[[:space:]]*$TRACER\$" "/proc/$SERVER_PID/status" && return 0
		sleep 0.01
	done
	fail "strace did not attach to the server"
}
detach() {
	[ -n "$TRACER" ] || return 0
	kill -TERM "$TRACER" 2>/dev/null
	wait "$TRACER" 2>/dev/null
	TRACER=""
}

# The dynamic loader makes calls of its own before coresink's main (openat, read, mmap of each library): a fault
# there is not coresink's to handle. The handler's calls are counted from its first own call (umask, in main): the
# calls of each syscall before it, in a run without a fault, are added to the call a fault is aimed at (OFF). Its
# last call of each (LAST) is the count of that run's calls. Socket mode: strace counts the calls of each crash's
# process from its fork, with no loader before them; its calls are the first process the server forked.
declare -A LAST=()
count_calls() {
	local prog
	wrap "-f -o $T/base.log"
	crash 8
	detach
	for _ in $(seq 50); do [ -s "$T/base.log" ] && break; sleep 0.1; done
	# shellcheck disable=SC2016
	prog='NR == 1 && mode == "pipe" { pid = $1 } !pid && $1 != server { pid = $1 } $1 != pid { next }
		{ sc = $2; sub(/\(.*/, "", sc) }
		mode == "pipe" && !main && sc == "umask" { main = 1; for (s in n) off[s] = n[s] }
		{ n[sc]++ }
		END { for (s in n) print s, off[s] + 0, n[s] }'
	while read -r sc off n; do
		OFF[$sc]=$off LAST[$sc]=$n
	done < <(awk -v mode="$MODE" -v server="${SERVER_PID:-0}" "$prog" "$T/base.log")
	rm -f "$T/cores"/core.*
}
# aim SYSCALL WHEN: WHEN (N, N+ for every call from the Nth, or "last") counted from main, as strace counts SYSCALL;
# nothing for the last call of one the faultless capture never made past the loader.
aim() {
	local off=${OFF[$1]:-0} n=${2%+}
	if [ "$2" = last ]; then
		[ "${LAST[$1]:-0}" -gt "$off" ] && echo "${LAST[$1]}"
		return 0
	fi
	echo "$((n + off))${2#$n}"
}

if [ "$MODE" = socket ]; then
	start_server "$T/c.conf"
	at_exit detach
	use_socket "$T/c.conf"
fi

# whole CORE MIB: CORE (compressed, encrypted to AGE_TEST_IDENTITY's key, or neither) holds the crasher's MIB of
# pattern.
whole() {
	case $1 in
	*.zst.age) age -d -i "$AGE_TEST_IDENTITY" "$1" 2>/dev/null | zstd -dcq > "$T/raw" 2>/dev/null &&
		"$PATCHECK" "$T/raw" "$2" > /dev/null 2>&1 ;;
	*.age) age -d -i "$AGE_TEST_IDENTITY" "$1" > "$T/raw" 2>/dev/null && "$PATCHECK" "$T/raw" "$2" > /dev/null 2>&1 ;;
	*.zst) zstd -dcq "$1" > "$T/raw" 2>/dev/null && "$PATCHECK" "$T/raw" "$2" > /dev/null 2>&1 ;;
	*) "$PATCHECK" "$1" "$2" > /dev/null 2>&1 ;;
	esac
}

# outcome: the last crash's entries (N), and of the one, its entry (E), RESULT, CORE and failed STEP. Where
# journald's socket is what failed, the entry went to the kernel log, in one line.
outcome() {
	if E=$(journal_entry "$CRASH_PID"); then
		N=$(entries_of "$CRASH_PID" "$(since_pid "$CRASH_PID")")
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
# of stored bytes is what the directory holds; NEXT_BAD says what broke, if anything. Not in a subshell: socket
# mode's tracer is this shell's. Sets CRASH_PID, E, RESULT, CORE as outcome() does.
next_crash() {
	local sum led
	NEXT_BAD=""
	wrap "-f -o /dev/null"
	crash 4
	outcome
	[ "$RESULT" = stored ] && whole "$CORE" 4 || NEXT_BAD="$NEXT_BAD the next crash not stored;"
	settled || NEXT_BAD="$NEXT_BAD a handler still in the ledger after 10 s;"
	sum=$(find "$T/cores" -maxdepth 1 -name 'core.*' -printf '%b\n' | awk '{ s += $1 * 512 } END { print s + 0 }')
	led=$(awk '$1 == "published" { print $2 }' "$T/cores/.coresink.state")
	[ "$sum" = "$led" ] || NEXT_BAD="$NEXT_BAD ledger $led against $sum on disk;"
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
stray() { entries "$T/cores" | grep -vE '^core\.crasher\.[0-9]+\.[0-9TZ]+(\.[0-9]+)?(\.zst)?(\.age)?$'; }

