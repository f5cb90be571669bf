#!/bin/bash
# The per-crash limits with real crashes and a real journald: RLIMIT_CORE 0 stores nothing but logs the crash; a
# small RLIMIT_CORE cuts the core there; OnLimit=discard keeps nothing; MaxUse removes the oldest cores to make
# room for the newest; every crash has exactly one entry saying why.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
scratch
start_journald
MIB=$((1024 * 1024))

# crash_with ULIMIT MIB: a crash under `ulimit -c ULIMIT` (KiB, or unlimited).
crash_with() {
	( ulimit -c "$1"; exec "$CRASHER" "$2" ) 2>/dev/null &
	CRASH_PID=$!
	{ wait "$CRASH_PID"; } 2>/dev/null
	e=$(journal_entry "$CRASH_PID") || fail "no journal entry for $CRASH_PID"
	n=$(printf '%s\n' "$e" | grep -c '^MESSAGE_ID=')
	[ "$n" -eq 1 ] || fail "$n entries for pid $CRASH_PID"
}

write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "MaxUse=1G" "RateLimitBurst=0"
use_handler "$T/c.conf"

crash_with 0 16
check "RLIMIT_CORE 0: nothing stored" test -z "$(entries "$T/cores" 2>/dev/null)"
check "RLIMIT_CORE 0: logged as skipped" has_line "$e" "CORESINK_RESULT=skipped"
check "RLIMIT_CORE 0: the message says why" has "$e" "not stored: RLIMIT_CORE is 0"

crash_with 8192 32
core=$(only_file "$T/cores") || exit 1
# Its last bytes give way to the thread's stack (EarlyStacks=): the file stays within the limit, all but a few pages.
check "RLIMIT_CORE 8 MiB: the core is cut within 8 MiB, its stack kept ($(file_size "$core") bytes)" \
	test "$(file_size "$core")" -le $((8 * MIB)) -a "$(file_size "$core")" -gt $((8 * MIB - 65536)) -a \
	-n "$(grep '^CORESINK_STACKS=.*kept in place' <<< "$e")"
check "and marked truncated, by RLIMIT_CORE" all_of "$e" COREDUMP_TRUNCATED=1 CORESINK_LIMIT=RLIMIT_CORE
check "and COREDUMP_RLIMIT says 8 MiB" has_line "$e" "COREDUMP_RLIMIT=$((8 * MIB))"
rm -f "$core"

write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "MaxCoreSize=4M" "OnLimit=discard" "RateLimitBurst=0"
crash_with unlimited 16
check "OnLimit=discard: nothing kept at MaxCoreSize" test -z "$(entries "$T/cores")"
check "OnLimit=discard: logged as discarded by MaxCoreSize" \
	all_of "$e" CORESINK_RESULT=discarded CORESINK_LIMIT=MaxCoreSize

# MaxUse 40 MiB, cores of ~17 MiB: the third crash needs room, so the oldest goes.
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "MaxUse=40M" "ChunkSize=1M" "RateLimitBurst=0"
pids=()
for i in 1 2 3 4; do
	crash_with unlimited 16
	pids+=("$CRASH_PID")
	sleep 1.1   # distinct mtimes and names
done
total=$(cat "$T"/cores/core.* | wc -c)
check "MaxUse holds: $total bytes stored of 40 MiB" test "$total" -le $((40 * MIB))
check "the newest core is kept, complete" "$PATCHECK" "$(ls "$T"/cores/core.*.${pids[3]}.*)" 16
check "the oldest cores were removed for it" test -z "$(ls "$T"/cores/core.*.${pids[0]}.* 2>/dev/null)"
check "and the entry says so" has "$e" "old core(s)"
check "CORESINK_VACUUMED in the entry" matches "$e" '^CORESINK_VACUUMED=[1-9]'
