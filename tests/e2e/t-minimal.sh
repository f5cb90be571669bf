#!/bin/bash
# Minimal cores (Core=minimal), on real crashes: a C program with 16 threads, Python with threads, Node, and a
# process holding 1 GiB, each crashed once with the whole core stored and once minimal. gdb's "thread apply all bt"
# shows the same frames for every thread in both, and so does the entry's stack trace; the minimal core's size and
# the time to release are printed beside the full core's. A module's static function is named from the minimal
# core as from the full one; hostile cores are stored whole with the reason; Storage=none keeps no file.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v gdb >/dev/null || skip "no gdb"
scratch
start_journald
base=("KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "MaxUse=8G" "StackTraceMaxSize=2G")
write_config "$T/full.conf" "Directory=$T/full" "${base[@]}"
write_config "$T/min.conf" "Directory=$T/min" "${base[@]}" "Core=minimal"
PY=/usr/bin/python3

# run CONF CMD...: crashes CMD (it must die of a signal) with CONF's handler; sets CRASH_PID and RELEASE_MS, the
# time from the crash (the crasher's -t, else the start) to the process being let go.
run() {
	local conf=$1 t0 t1 out
	shift
	use_handler "$T/$conf.conf"
	t0=$(date +%s%N)
	crash_run "$@" > "$T/out"
	t1=$(date +%s%N)
	out=$(grep -m1 -oE '^[0-9]{19}$' "$T/out")
	RELEASE_MS=$(( (t1 - ${out:-$t0}) / 1000000 ))
	entry_message "$CRASH_PID" > "$T/$conf.msg" || fail "no entry for $*"
	journal_entry "$CRASH_PID" > "$T/$conf.entry"
}

# trace CONF: the entry's stack traces of $T/CONF.msg, thread by thread (lib.sh).
trace() { trace_blocks < "$T/$1.msg"; }

# compare WHAT EXE CMD...: WHAT crashed full and minimal; the frames and traces agree; sizes and times printed.
compare() {
	local what=$1 exe=$2 fcore mcore ff mf fdisk mdisk frel
	shift 2
	run full "$@"; frel=$RELEASE_MS
	fcore=$(field "$(cat "$T/full.entry")" COREDUMP_FILENAME)
	run min "$@"
	mcore=$(field "$(cat "$T/min.entry")" COREDUMP_FILENAME)
	[ -f "$fcore" ] && [ -f "$mcore" ] || fail "$what: a core is missing ($fcore, $mcore)"
	ff=$(gdb_threads "$exe" "$fcore"); mf=$(gdb_threads "$exe" "$mcore")
	fdisk=$(( $(stat -c %b "$fcore") * 512 )); mdisk=$(( $(stat -c %b "$mcore") * 512 ))
	echo "     $what: full $(file_size "$fcore") bytes ($fdisk on disk), released in $frel ms;" \
		"minimal $(file_size "$mcore") bytes ($mdisk on disk), released in $RELEASE_MS ms"
	echo "     $(field "$(cat "$T/min.entry")" CORESINK_CORE)"
	check "$what: gdb finds $(printf '%s\n' "$ff" | grep -c '^Thread') threads and $(printf '%s\n' "$ff" |
		grep -o ' | #' | wc -l) frames in the full core" test "$(printf '%s\n' "$ff" | grep -c ' | #')" -gt 0
	[ "$ff" = "$mf" ] || diff <(printf '%s\n' "$ff") <(printf '%s\n' "$mf") | head -n 20
	check "$what: gdb shows the same frames of every thread in the minimal core" test "$ff" = "$mf"
	[ "$(trace full)" = "$(trace min)" ] || diff <(trace full) <(trace min) | head -n 20
	check "$what: the entry's stack trace is the same" test "$(trace full)" = "$(trace min)"
	check "$what: the minimal core is the smaller on disk" test "$mdisk" -lt "$fdisk"
	check "$what: the entry says what was kept" matches "$(cat "$T/min.entry")" '^CORESINK_CORE=minimal: '
	check "$what: the full core's entry has no CORESINK_CORE" lacks "$(cat "$T/full.entry")" CORESINK_CORE=
}

compare "C, 16 threads" "$CRASHER" "$CRASHER" -T 16 64
check "C: all 17 stacks kept" has "$(cat "$T/min.entry")" "17 thread stacks (0 cut)"
check "C: the module list was read" matches "$(cat "$T/min.entry")" '; [1-9][0-9]* modules listed; '
check "C: gdb's thread names come from libthread_db in the minimal core too" \
	has "$(gdb -q -batch -ex 'info threads' "$CRASHER" "$(field "$(cat "$T/min.entry")" COREDUMP_FILENAME)" 2>&1)" \
	"(Thread 0x"

if [ -x "$PY" ]; then
	compare "Python, 4 threads" "$PY" "$PY" -c '
import os, signal, threading, time
ev = threading.Event()
for _ in range(4): threading.Thread(target=ev.wait, daemon=True).start()
time.sleep(0.5)
os.kill(os.getpid(), signal.SIGSEGV)'
else
	echo "SKIP $NAME: no $PY: Python not tried"
fi

if command -v node >/dev/null; then
	node=$(readlink -f "$(command -v node)")
	compare "Node" "$node" "$node" -e 'setTimeout(() => process.abort(), 200)'
else
	echo "SKIP $NAME: no node: Node not tried"
fi

# Socket mode: the same filter on the connection the kernel dumps into.
if have_socket_mode; then
	write_config "$T/sock.conf" "Directory=$T/sockmin" "${base[@]}" "Core=minimal" "Socket=$T/sock/kernel.socket"
	start_server "$T/sock.conf"
	use_socket "$T/sock.conf"
	crash_run "$CRASHER" -T 16 64
	entry_message "$CRASH_PID" > "$T/sock.msg" || fail "socket mode: no entry"
	# (journal_entry sets e itself: the socket crash's entry is kept in se.)
	se=$(journal_entry "$CRASH_PID")
	run full "$CRASHER" -T 16 64
	ff=$(gdb_threads "$CRASHER" "$(field "$(cat "$T/full.entry")" COREDUMP_FILENAME)")
	mf=$(gdb_threads "$CRASHER" "$(field "$se" COREDUMP_FILENAME)")
	echo "     socket mode: $(field "$se" CORESINK_CORE)"
	check "socket mode: a minimal core" matches "$se" '^CORESINK_CORE=minimal: .* 17 thread stacks'
	check "socket mode: gdb shows the same frames as in the full core" test "$ff" = "$mf"
	check "socket mode: the same stack trace" test "$(trace full)" = "$(trace sock)"
	stop_server
else
	echo "SKIP $NAME: no socket mode here (Linux 6.17)"
fi

compare "1 GiB dense" "$CRASHER" "$CRASHER" -t 1024
check "1 GiB: the minimal core is under 1% of the full one" \
	test $(( $(file_size "$(field "$(cat "$T/min.entry")" COREDUMP_FILENAME)") * 100 )) -lt \
	"$(file_size "$(field "$(cat "$T/full.entry")" COREDUMP_FILENAME)")"
rm -f "$T"/full/core.* "$T"/min/core.*

# A stack larger than MinimalStackSizeMax is cut there: the innermost frames stay.
write_config "$T/min.conf" "Directory=$T/min" "${base[@]}" "Core=minimal" "MinimalStackSizeMax=4K"
run min "$CRASHER" -T 2 8
e=$(cat "$T/min.entry")
# Whether a stack needs more than a page depends on where ASLR put its top within its page: at least one does.
check "MinimalStackSizeMax=4K: the stacks are cut, a page each at most ($(field "$e" CORESINK_CORE))" \
	matches "$e" '3 thread stacks \([1-3] cut\), (4096|8192|12288) bytes;'

check "and the crashing frame is still there" has "$(gdb_threads "$CRASHER" "$(field "$e" COREDUMP_FILENAME)")" \
	"#0  crash_here"

# Hostile cores, handed to the handler directly: no minimal core can be planned, so they are stored whole.
write_config "$T/min.conf" "Directory=$T/min" "${base[@]}" "Core=minimal"
core=$(field "$(cat "$T/full.entry")" COREDUMP_FILENAME)
run full "$CRASHER" 8
core=$(field "$(cat "$T/full.entry")" COREDUMP_FILENAME)
for mode in phnum notes cut; do
	"$B/corecraft" "$mode" "$core" > "$T/bad" || fail "corecraft $mode"
	gone=$(sh -c 'echo $$')
	"$CORESINK" --config "$T/min.conf" "$gone" 0 0 11 "$(date +%s)" "$UNLIMITED" "$(hostname)" crafted 1 "" \
		< "$T/bad"
	e=$(journal_entry "$gone") || fail "crafted core ($mode): no entry"
	check "crafted core ($mode): stored whole: $(field "$e" CORESINK_CORE)" \
		test "$(file_size "$(field "$e" COREDUMP_FILENAME)")" -eq "$(file_size "$T/bad")"
done

# Storage=none: the entry and its stack trace, no file.
write_config "$T/min.conf" "Directory=$T/none" "${base[@]}" "Storage=none"
run min "$CRASHER" -T 2 32
e=$(cat "$T/min.entry")
check "Storage=none: CORESINK_RESULT=recorded" has_line "$e" "CORESINK_RESULT=recorded"
check "Storage=none: no COREDUMP_FILENAME" lacks "$e" "COREDUMP_FILENAME="
check "Storage=none: the stack trace is there, made from a minimal core" has "$(cat "$T/min.msg")" "#0  0x"
check "Storage=none: nothing left in the directory" test -z "$(entries "$T/none")"
check "Storage=none: the message says so" has "$(cat "$T/min.msg")" "not stored (Storage=none, read for the stack trace)"
info=$(cdctl info "$CRASH_PID" 2>&1)
check "Storage=none: coredumpctl info shows the crash with no storage" has "$info" "Storage: none"
write_config "$T/min.conf" "Directory=$T/none" "${base[@]}" "Storage=none" "StackTrace=no"
run min "$CRASHER" 32
e=$(cat "$T/min.entry")
check "Storage=none, StackTrace=no: recorded, the core never read" has_line "$e" "CORESINK_SIZE=0"
check "Storage=none, StackTrace=no: the message says so" has "$(cat "$T/min.msg")" "not stored (Storage=none)."
