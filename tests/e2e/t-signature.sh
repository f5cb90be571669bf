#!/bin/bash
# Crash signatures on real crashes (docs/signatures.md). One program with two bugs: one crashing 20 times, each time
# a new process loaded elsewhere (ASLR), the other twice: two signatures, the counts (SEEN) and the first-seen
# marker (NEW) right. The same in a container with its own root: the host's signature for the same bug, counted
# together, and the other bug's apart. Then MaxCoresPerSignature=2 keeps 2 cores of a loop of 5 and both of the
# other bug's, the others' entries whole and saying why; and a [Rule] sets it for the crashes it matches. And each way of dying lands on the program's own frame, past the machinery: a null dereference, a
# failed assert, abort(), an uncaught C++ exception, a Rust panic, a crash in C called from Python by ctypes.
# coresink --summary groups these crashes by signature, its table and its JSON alike; and 100000 synthetic entries
# of 7 hosts, written by systemd-journal-remote into a directory as a fleet's would be, are grouped right (-D).
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v cc > /dev/null || skip "no C compiler to build the programs"
# Root's crashes are analysed as coresink-analysis: without it, no trace, and only the weaker signatures.
id coresink-analysis > /dev/null 2>&1 || skip "no user coresink-analysis: run through tests/e2e/run.sh"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
cc -O0 -g -o "$T/bugs" "$TOP/tests/helpers/bugs.c" || fail "building bugs"
cc -O0 -g -static -o "$T/bugs-static" "$TOP/tests/helpers/bugs.c" || fail "building bugs, static"

# run ARGS...: a crash of ARGS, its entry in E, and its signature in SIG (TEXT: what was hashed).
run() {
	crash_run "$@"
	E=$(journal_entry "$CRASH_PID") || fail "no entry for $*"
	SIG=$(field "$E" CORESINK_SIGNATURE) TEXT=$(field "$E" CORESINK_SIGNATURE_TEXT)
}

# 1. A loop of one bug and another bug of the same program.
run "$T/bugs" null
loop=$SIG
check "the first crash of a bug is new: $TEXT" all_of "$E" "CORESINK_SIGNATURE_NEW=1" "CORESINK_SIGNATURE_SEEN=1" \
	"CORESINK_SIGNATURE_FROM=trace"
check "its text is the bug's frames" test "$TEXT" = "2;SIGSEGV;bugs!store_through;bugs!null_bug;bugs!main"
first=$(field "$E" CORESINK_SIGNATURE_FIRST_SEEN)
same=1
for i in $(seq 2 20); do
	run "$T/bugs" null
	[ "$SIG" = "$loop" ] || same=0
done
check "20 crashes of it, each a new process: one signature ($loop)" test "$same" -eq 1
check "the 20th: seen 20 times, since the first, and not new" all_of "$E" "CORESINK_SIGNATURE_SEEN=20" \
	"CORESINK_SIGNATURE_FIRST_SEEN=$first"
check "and not new" lacks "$E" "CORESINK_SIGNATURE_NEW="
run "$T/bugs" other
other=$SIG
check "another bug of the same program: another signature ($TEXT)" test "$other" != "$loop"
check "and it is new" has_line "$E" "CORESINK_SIGNATURE_NEW=1"
run "$T/bugs" other
check "twice: seen 2 times" has_line "$E" "CORESINK_SIGNATURE_SEEN=2"

# 2. The two bugs in a container with its own root (nothing but the program, static, in its own pid namespace):
# the same bug's signature as on the host, counted with the host's crash; the other bug's, new, counted apart.
mkdir -p "$T/croot"
cp "$T/bugs-static" "$T/croot/bugs-static"
run "$T/bugs-static" null
host=$SIG
# inside BUG: a crash of BUG in the container; its entry, as JSON, in IN. Its pid is the container's child's: the
# entry is the newest of bugs-static since the crash.
inside() {
	local since cp
	since="@$(date +%s.%N)"
	{ ( ulimit -c unlimited; exec unshare --pid --mount --fork chroot "$T/croot" /bugs-static "$1" ) & cp=$!; \
	  wait "$cp"; } 2> /dev/null
	IN=""
	for _ in $(seq 50); do
		IN=$(JCTL_SINCE=$since jctl -o json "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_COMM=bugs-static" | tail -n 1)
		[ -n "$IN" ] && break
		sleep 0.1
	done
}
field_in() { printf '%s' "$IN" | jq -r ".$1"; }
inside null
check "in a container with its own root: the host's signature ($(field_in CORESINK_SIGNATURE_TEXT))" \
	test "$(field_in CORESINK_SIGNATURE)" = "$host" -a -n "$host"
inside null
inside null
check "three crashes of it there and one here: seen 4 times" test "$(field_in CORESINK_SIGNATURE_SEEN)" = 4
inside other
other_in=$(field_in CORESINK_SIGNATURE)
check "the other bug in the container: another signature, new" test "$other_in" != "$host" -a \
	"$(field_in CORESINK_SIGNATURE_NEW)" = 1
inside other
check "twice: seen 2 times, the same signature" test "$(field_in CORESINK_SIGNATURE_SEEN)" = 2 -a \
	"$(field_in CORESINK_SIGNATURE)" = "$other_in"

# 3. MaxCoresPerSignature=2: 2 cores of the loop kept, both of the other bug's.
write_config "$T/m.conf" "Directory=$T/mcores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"MaxCoresPerSignature=2"
use_handler "$T/m.conf"
kept=0 dropped=0
for i in $(seq 5); do
	run "$T/bugs" null
	case $(field "$E" CORESINK_RESULT) in
	stored) kept=$((kept + 1)) ;;
	suppressed) dropped=$((dropped + 1)); last=$E ;;
	esac
done
run "$T/bugs" other
run "$T/bugs" other
check "a loop of 5: 2 stored, 3 not kept" test "$kept" -eq 2 -a "$dropped" -eq 3
msg=$(entry_message "$(field "$last" COREDUMP_PID)")
check "one not kept says why: $(printf '%s\n' "$msg" | head -n 1)" has "$msg" "not kept: MaxCoresPerSignature=2"
check "and how many were kept since when: $(field "$last" CORESINK_SIGNATURE_KEPT)" matches "$last" \
	"^CORESINK_SIGNATURE_KEPT=2 of MaxCoresPerSignature=2 since [0-9]+$"
check "its stack trace is in its message" has "$msg" "null_bug"
check "and it names no core" lacks "$last" "COREDUMP_FILENAME="
check "the directory holds 4 cores: 2 of the loop, both of the other bug" test "$(entries "$T/mcores" | wc -l)" -eq 4

# A [Rule] sets it for the crashes it matches: MaxCoresPerSignature=1 for this program, 1 of 3 cores kept.
write_config "$T/r.conf" "Directory=$T/rcores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
printf '[Rule]\nName=loops\nMatchExecutable=%s\nMaxCoresPerSignature=1\n' "$T/bugs" >> "$T/r.conf"
use_handler "$T/r.conf"
results=""
for i in $(seq 3); do
	run "$T/bugs" null
	results="$results $(field "$E" CORESINK_RESULT)"
done
check "a [Rule] with MaxCoresPerSignature=1: stored once, then not kept:$results" test "$results" = \
	" stored suppressed suppressed"
check "the entry names the rule" has_line "$E" "CORESINK_RULE=loops"
check "one core in its directory" test "$(entries "$T/rcores" | wc -l)" -eq 1

# 4. Every way of dying lands on the program's own frame.
use_handler "$T/c.conf"
run "$T/bugs" assert
check "a failed assert: $TEXT" matches "$TEXT" "^2;SIGABRT;bugs!check_input;bugs!main;"
run "$T/bugs" abort
check "abort(): $TEXT" matches "$TEXT" "^2;SIGABRT;bugs!give_up;bugs!main;"
if command -v g++ > /dev/null && g++ -O0 -g -o "$T/bugs-cxx" "$TOP/tests/helpers/bugs.cc"; then
	run "$T/bugs-cxx"
	check "an uncaught C++ exception: $TEXT" matches "$TEXT" "^2;SIGABRT;bugs-cxx!(do_work|_ZL7do_worki);bugs-cxx!main;"
else
	echo "skip $NAME: no g++: the C++ case not run"
fi
if command -v rustc > /dev/null && rustc -g -C opt-level=0 -C panic=abort -o "$T/bugs-rs" \
	"$TOP/tests/helpers/bugs.rs" 2> /dev/null; then
	run "$T/bugs-rs" x
	check "a Rust panic: $TEXT" matches "$TEXT" "^2;SIGABRT;bugs-rs!_ZN4bugs5parse"
else
	echo "skip $NAME: no rustc: the Rust case not run"
fi
PY=$(command -v /usr/bin/python3 python3 | head -n 1)
run "$PY" -c 'import ctypes; ctypes.string_at(0)'
check "Python, a C function called by ctypes: $TEXT" matches "$TEXT" "^2;SIGSEGV;[^;!]+!"
check "and no frame of it is the interpreter's machinery" none_of "$TEXT" "raise" "abort"

# 5. The summary of these crashes: the loop's signature with its 20 crashes (and 5 + 3 more under
# MaxCoresPerSignature, in other directories but the same journal), the other bug's 2 + 2; the table and the JSON
# say the same.
J=$("$CORESINK" --summary --json --since "${TEST_SINCE}") || fail "coresink --summary --json"
check "the summary's JSON: the loop seen 28 times" test "$(printf '%s' "$J" |
	jq -r --arg s "$loop" '.signatures[] | select(.signature == $s) | .crashes')" = 28
check "the other bug 4 times" test "$(printf '%s' "$J" |
	jq -r --arg s "$other" '.signatures[] | select(.signature == $s) | .crashes')" = 4
table=$("$CORESINK" --summary --since "${TEST_SINCE}") || fail "coresink --summary"
check "the table says the same: $(printf '%s\n' "$table" | grep "^$loop")" matches "$table" "^$loop +28 +1 "
check "the loop's top frames and newest core in the table" has "$table" "SIGSEGV;bugs!store_through;bugs!null_bug"

# 6. 100000 entries of 200 signatures from 7 hosts, as systemd-journal-remote writes a fleet's, with the fields each
# host's journald recorded of coresink's handler, which --summary judges them by.
if [ -x /lib/systemd/systemd-journal-remote ]; then
	mkdir -p "$T/fleet"
	awk -v id="$MESSAGE_ID" 'BEGIN { for (i = 0; i < 100000; i++) {
		s = (i % 10) ? i % 200 : 0
		printf "__REALTIME_TIMESTAMP=%.0f\n__MONOTONIC_TIMESTAMP=%.0f\n_BOOT_ID=0123456789abcdef0123456789abcdef\n", \
			1764000000000000 + i * 1000, 1000 + i
		printf "_HOSTNAME=host%d\nMESSAGE_ID=%s\nMESSAGE=Process %d (prog) dumped core\n", i % 7, id, i
		printf "_TRANSPORT=journal\n_COMM=coresink\n_EXE=/usr/libexec/coresink\n_UID=0\nSYSLOG_IDENTIFIER=coresink\n"
		printf "COREDUMP_EXE=/usr/bin/prog\nCORESINK_SIGNATURE=%016x\n", 4096 + s
		printf "CORESINK_SIGNATURE_TEXT=1;SIGSEGV;prog!f%d;prog!main\nCORESINK_SIGNATURE_FROM=trace\n\n", s
	} }' > "$T/fleet.export"
	/lib/systemd/systemd-journal-remote --output="$T/fleet/remote.journal" "$T/fleet.export" > /dev/null 2>&1 ||
		fail "systemd-journal-remote"
	t0=$(date +%s%N)
	J=$("$CORESINK" --summary --json -D "$T/fleet") || fail "coresink --summary -D"
	t1=$(date +%s%N)
	echo "$NAME: 100000 entries summarised in $(( (t1 - t0) / 1000000 )) ms"
	check "100000 entries: 181 signatures" test "$(printf '%s' "$J" | jq '.signatures | length')" = 181
	check "the most frequent first, 10000 crashes on 7 hosts" test "$(printf '%s' "$J" |
		jq -r '.signatures[0] | "\(.signature) \(.crashes) \(.hosts | length)"')" = "0000000000001000 10000 7"
	check "the least, 500 each" test "$(printf '%s' "$J" | jq '[.signatures[].crashes] | min')" = 500
fi
