#!/bin/bash
# Root's tools against a hostile user and a hostile fleet (docs/security.md). An unprivileged user (uid 54321) with
# full control of their own entries, programs and crashes, and a journal directory of another host written entry by
# entry (systemd-journal-remote, from the export format: any field, _UID=0 included, any byte), try every verb as
# root runs it (list, info, dump, debug, remove, retrace, status, vacuum, summary). Each attempt is said with what
# stopped it: no command runs, no file outside the core directory is read, removed or dumped, no other user's core
# is named, nothing reaches the terminal unescaped, every JSON parses.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern, acts as other users and runs root's coresinkctl"
for tool in logger setpriv gdb jq perl; do command -v $tool > /dev/null || skip "no $tool"; done
REMOTE=/lib/systemd/systemd-journal-remote
[ -x "$REMOTE" ] || skip "no systemd-journal-remote"
scratch
chmod 0755 "$T"
start_journald
CTL=$B/coresinkctl
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
EVIL=54321 VICTIM=54322
PWNED=$T/pwned
# ctl ARGS...: root's coresinkctl on this test's directory and time.
ctl() { "$CTL" --config "$T/c.conf" "$@"; }
as() { local id=$1; shift; HOME=$T setpriv --reuid="$id" --regid="$id" --clear-groups "$@"; }
# clean TEXT: TEXT holds no byte a terminal acts on: no C0 control but newline and tab, no DEL, no C1 (as UTF-8).
clean() { ! printf '%s' "$1" | LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]'; }
no_pwn() { [ ! -e "$PWNED" ]; }
# both CMD... -- CMD...: both commands succeed. jq_valid TEXT: TEXT is JSON, one value a line.
both() { local a=(); while [ "$1" != -- ]; do a+=("$1"); shift; done; shift; "${a[@]}" && "$@"; }
jq_valid() { jq -e . <<< "$1" > /dev/null 2>&1; }
# check, as every attempt is made and said whatever came of the ones before (a run on an older build lists them
# all); the test fails at its end if any got through.
THROUGH=0
check() { local what=$1; shift; if "$@"; then ok "$what"; else echo "FAIL $NAME: $what"; THROUGH=$((THROUGH + 1)); fi; }

# The victim's crash, and the attacker's own: each filed in its user's journal, with root's seal.
cp "$CRASHER" "$T/victimapp" && cp "$CRASHER" "$T/evilapp" || fail "copying the crasher"
crash_run setpriv --reuid=$VICTIM --regid=$VICTIM --clear-groups "$T/victimapp" -c victimapp 4
VPID=$CRASH_PID
v=$(journal_entry "$VPID") || fail "no entry of the victim's crash"
VCORE=$(field "$v" COREDUMP_FILENAME) VTS=$(field "$v" COREDUMP_TIMESTAMP)
check "the victim's crash: stored in the user's journal, sealed ($(basename "$VCORE"))" \
	test -s "$VCORE" -a "$(field "$v" _UID)" = $VICTIM
sleep 1.1
AFTER_VICTIM="@$(date +%s)"
crash_run setpriv --reuid=$EVIL --regid=$EVIL --clear-groups "$T/evilapp" -c evilapp 4
EPID=$CRASH_PID
e=$(journal_entry "$EPID") || fail "no entry of the attacker's crash"
EID=$(field "$e" CORESINK_ENTRY)
check "the attacker's own crash, with its entry id (which it can read): $EID" test -n "$EID"
sleep 1.1
AFTER_EVIL="@$(date +%s)"

# 1. The attacker's sealed entry, copied with the victim's name, pid, time and core, and a gdb option as its EXE.
as $EVIL logger --journald <<EOF || fail "logger --journald as the attacker"
MESSAGE_ID=$MESSAGE_ID
MESSAGE=Process $VPID (victimapp) of user $EVIL dumped core.
SYSLOG_IDENTIFIER=coresink
CORESINK_ENTRY=$EID
COREDUMP_PID=$VPID
COREDUMP_UID=$EVIL
COREDUMP_GID=$EVIL
COREDUMP_SIGNAL=11
COREDUMP_COMM=victimapp
COREDUMP_EXE=-ex=shell touch $PWNED
COREDUMP_TIMESTAMP=$VTS
COREDUMP_FILENAME=$VCORE
CORESINK_RESULT=stored
EOF
# 2. A copy of the attacker's entry, unchanged but for nothing: sent later, it is not a second crash.
journalctl --no-pager --since "$TEST_SINCE" -o export "CORESINK_ENTRY=$EID" "MESSAGE_ID=$MESSAGE_ID" |
	tr -d '\0' | grep -E '^(MESSAGE|MESSAGE_ID|SYSLOG_IDENTIFIER|COREDUMP_[A-Z_]*|CORESINK_[A-Z_]*)=' |
	grep -v '^COREDUMP_PROC_\|^COREDUMP_OPEN_FDS' | as $EVIL logger --journald || fail "copying the entry"
sleep 0.5

out=$(ctl --since "$TEST_SINCE" list victimapp 2>&1)
check "list victimapp: the victim's crash alone, not the copy under its name (uids listed: $(awk 'NR > 1 { print $6 }' <<< "$out" | sort -u | tr '\n' ' '))" \
	test "$(grep -c " $VPID " <<< "$out")" = 1 -a "$(grep -c " $EVIL " <<< "$out")" = 0
check "and it says it skipped a forgery: $(grep skipped <<< "$out")" matches "$out" "entries with coresink's MESSAGE_ID skipped"
out=$(ctl --since "$AFTER_VICTIM" list victimapp 2>&1)
check "list victimapp --since after the victim's crash (the genuine entry filtered out): nothing: $(tail -n 1 <<< "$out")" \
	has "$out" "No coredumps found"
out=$(ctl --since "$AFTER_VICTIM" debug -A "-batch -ex bt" victimapp 2>&1)
check "debug victimapp, the genuine entry filtered out: the copy is not taken, gdb runs no shell" no_pwn
out=$(ctl --since "$TEST_SINCE" debug -A "-batch -ex bt" victimapp 2>&1)
check "debug victimapp: gdb on the victim's own crash ($(grep -c crash_here <<< "$out") crash_here), no shell run" \
	has "$out" crash_here
check "  (still no file made by a shell)" no_pwn
out=$(ctl --since "$AFTER_VICTIM" remove --dry-run victimapp 2>&1)
check "remove --dry-run victimapp, the genuine filtered out: the victim's core is not named ($(tail -n 1 <<< "$out"))" \
	lacks "$out" "$(basename "$VCORE")"
out=$(ctl --since "$AFTER_VICTIM" list "$EPID" 2>&1)
check "list PID of the attacker's crash: its entry once, not its copy as a second crash" \
	test "$(grep -c " $EPID " <<< "$out")" = 1
out=$(ctl --since "$AFTER_EVIL" list "$EPID" 2>&1)
check "list PID --since after the genuine one: the copy, sent later, is not taken for it" has "$out" "No coredumps found"
out=$("$CORESINK" --config "$T/c.conf" --summary --json --since "$TEST_SINCE")
mine=$(jq "[.signatures[] | select(.executable == \"$T/victimapp\" or .executable == \"$T/evilapp\") | .crashes] | add" <<< "$out")
check "summary: the two crashes counted ($mine), the forgeries skipped ($(jq .skipped_not_coresinks <<< "$out")), no crash of '-ex=shell ...'" \
	test "$mine" = 2 -a "$(jq .skipped_not_coresinks <<< "$out")" -ge 2 -a -z "$(grep -- '-ex=shell' <<< "$out")"

# 3. Another host's journal directory (what systemd-journal-remote collects over plain http: any host of the
# network can send one): entries with _UID=0, coresink's identifier, and every field chosen.
MACHINE=$(cat /etc/machine-id 2>/dev/null || echo 0123456789abcdef0123456789abcdef)
# binfield NAME FILE: a binary field of the export format.
binfield() { printf '%s\n' "$1"; perl -e 'print pack("Q<", -s $ARGV[0])' "$2"; cat "$2"; printf '\n'; }
# remote_entry N FIELD=VALUE...: one entry, with the fields journald records of coresink's own handler.
remote_entry() {
	local n=$1 f; shift
	printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=0123456789abcdef0123456789abcdef\n' \
		"$(( $(date +%s) * 1000000 + n ))" "$n"
	printf '_MACHINE_ID=%s\n_HOSTNAME=fleet-host\n_TRANSPORT=journal\n_UID=0\n_GID=0\n_COMM=coresink\n' "$MACHINE"
	printf 'SYSLOG_IDENTIFIER=coresink\nMESSAGE_ID=%s\nCOREDUMP_SIGNAL=11\nCOREDUMP_GID=0\n' "$MESSAGE_ID"
	for f in "$@"; do printf '%s\n' "$f"; done
}
ESC=$'\e' BEL=$'\a' CSI=$'\xc2\x9b' BAD=$'\xff\xfe'
cp "$VCORE" "$T/victim.core"
{
	remote_entry 1 "MESSAGE=Process $VPID (remoteapp) dumped core." "COREDUMP_PID=$VPID" "COREDUMP_UID=$VICTIM" \
		"COREDUMP_COMM=remoteapp" "COREDUMP_EXE=-ex=shell touch $PWNED" "COREDUMP_TIMESTAMP=$VTS" \
		"COREDUMP_FILENAME=$VCORE" "CORESINK_ENTRY=00112233445566778899aabbccddeeff" "CORESINK_RESULT=stored"
	echo
	remote_entry 2 "MESSAGE=Process 2 (${ESC}]0;owned${BEL}) dumped core.${ESC}[2J${CSI}31m" "COREDUMP_PID=2" \
		"COREDUMP_UID=0" "COREDUMP_COMM=${ESC}]0;owned${BEL}" "COREDUMP_EXE=/usr/bin/${CSI}1m${BAD}x" \
		"COREDUMP_TIMESTAMP=1,\"UID\":0,\"x\":\"" "COREDUMP_CMDLINE=a${ESC}[8mb" \
		"CORESINK_RESULT=${ESC}]0;stored${BEL}" "CORESINK_ENTRY=ffeeddccbbaa99887766554433221100"
	echo
	# Storage=journal: the core in the entry, so that a retrace reads it (the victim's bytes, as the host said).
	remote_entry 3 "MESSAGE=Process 3 (${ESC}]0;retraced${BEL}) dumped core." "COREDUMP_PID=3" "COREDUMP_UID=0" \
		"COREDUMP_COMM=${ESC}]0;retraced${BEL}" "COREDUMP_EXE=$T/victimapp" "COREDUMP_TIMESTAMP=3000000" \
		"CORESINK_RESULT=stored" "CORESINK_ENTRY=0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f" \
		"CORESINK_SIZE=$(stat -c %s "$T/victim.core")"
	binfield COREDUMP "$T/victim.core"
	echo
	# The newest: what status shows as the last crash.
	remote_entry 4 "MESSAGE=Process 4 dumped core." "COREDUMP_PID=4" "COREDUMP_UID=0" \
		"COREDUMP_EXE=/usr/bin/${ESC}]0;owned${BEL}" "CORESINK_RESULT=${ESC}[31mstored${CSI}0m" \
		"CORESINK_ENTRY=4444f0f0f0f0f0f0f0f0f0f0f0f0f0f0"
	echo
} > "$T/fleet.export"
mkdir -p "$T/fleet"
"$REMOTE" --output="$T/fleet/remote.journal" "$T/fleet.export" > "$T/remote.log" 2>&1 ||
	{ cat "$T/remote.log"; fail "systemd-journal-remote"; }
R() { ctl -D "$T/fleet" "$@"; }
out=$(R list 2>&1)
check "-D: the fleet's entries listed ($(R list --no-legend 2>/dev/null | grep -c .) rows), every byte escaped" clean "$out"
check "  (the escape shows as text: $(grep -o 'usr/bin/[^ ]*' <<< "$out" | head -n 1))" has "$out" '\xc2\x9b'
out=$(R debug -A "-batch -ex bt" remoteapp 2>&1)
check "-D debug remoteapp: the EXE '-ex=shell ...' never reaches gdb as an option, no shell runs" no_pwn
check "  it says why: $(tail -n 1 <<< "$out" | cut -c1-120)" \
	matches "$out" "(not this crash's core|executable is not a file here)"
out=$(R remove --dry-run remoteapp 2>&1)
check "-D remove --dry-run remoteapp: the victim's core, named with its pid, time and path, is not named" \
	lacks "$out" "$(basename "$VCORE")"
out=$(R dump -o "$T/dumped" remoteapp 2>&1)
check "-D dump remoteapp: nothing dumped ($(tail -n 1 <<< "$out" | cut -c1-100))" test ! -s "$T/dumped"
out=$(R info 2>&1)
check "-D info: every field escaped" clean "$out"
j=$(R info --json 2>&1)
check "-D info --json: valid JSON, one object an entry ($(jq -s length <<< "$j" 2>&1))" test "$(jq -s length <<< "$j")" = 4
check "  the injected timestamp is no number and adds no key: Timestamp $(jq -s -c '.[1].Timestamp' <<< "$j"), keys $(jq -s '.[1] | keys | length' <<< "$j")" \
	test "$(jq -s -c '.[1].Timestamp' <<< "$j")" = null -a "$(jq -s '.[1] | has("x")' <<< "$j")" = false
check "  and every string escaped: no control byte" clean "$j"
j=$(R list --json 2>&1)
check "-D list --json: valid JSON ($(jq length <<< "$j") crashes), escaped" \
	test "$(jq length <<< "$j")" = 4 -a -n "$(clean "$j" && echo y)"
out=$(R status 2>&1)
check "-D status: the last crash's exe and result escaped ($(grep 'last crash' <<< "$out" | cut -c1-100))" clean "$out"
out=$(R retrace 3 2>&1)
check "-D retrace: the fleet's core is analysed (a root's choice), and what it prints is escaped: $(head -n 1 <<< "$out" | cut -c1-90)" \
	clean "$out"
check "  it names the frames of the bytes it was given" has "$out" crash_here
out=$("$CORESINK" --config "$T/c.conf" --summary -D "$T/fleet" 2>&1)
check "summary -D: escaped" clean "$out"

# 4. Durations and sizes that overflow: refused, never wrapped round to "everything".
out=$(ctl vacuum --older-than=307445734561825861min --dry-run 2>&1); rc=$?
check "vacuum --older-than=307445734561825861min: refused (exit $rc), not 44 s: $(head -n 1 <<< "$out")" \
	test $rc = 100
out=$(ctl --since "-999999999999999999d" list 2>&1); rc=$?
check "--since -999999999999999999d: refused (exit $rc)" test $rc = 100
out=$(ctl vacuum --max-use=99999999999999999999T --dry-run 2>&1); rc=$?
check "vacuum --max-use=99999999999999999999T: refused (exit $rc)" test $rc = 100

# 5. debug ended by a signal: nothing of it left in /var/tmp (the core is an unlinked file; the sysroot removed).
before=$(ls /var/tmp | grep -c '^coresinkctl')
ctl --since "$TEST_SINCE" debug -A "-batch -ex 'shell sleep 3'" "$VPID" > /dev/null 2>&1 &
dbg=$!
sleep 1
kill -TERM $dbg
wait $dbg
rc=$?
check "debug, sent SIGTERM while gdb runs: ended by it (exit $rc), and nothing left in /var/tmp ($before before, $(ls /var/tmp | grep -c '^coresinkctl') after)" \
	test $rc = 143 -a "$(ls /var/tmp | grep -c '^coresinkctl')" = "$before"
check "no command of any entry ran, in all of it" no_pwn

# 6. A user who speaks before the handler does. The attacker's own crash, held between its core's publication and
# its entry: the analysis (as the attacker) is stopped, so the handler waits for it. Meanwhile the attacker reads
# what the core says of its entry (user.coresink.entry) and sends entries with it first. Once the analysis goes on,
# root's tools still take the genuine entry (sealed, the first with its id), and the forgeries are skipped.
crash_race() {
	local pid rec stopped tries=0
	( ulimit -c unlimited; exec setpriv --reuid=$EVIL --regid=$EVIL --clear-groups "$T/evilapp" -c raceapp 4 ) &
	pid=$!
	stopped=$("$STOPUID" $EVIL coresink 15000) || { wait $pid; fail "the analysis of the race's crash was not caught"; }
	# The core is published (the analysis reads it): its record, read as the attacker.
	core=$(ls -t "$T/cores" | grep '^core\.raceapp\.' | head -n 1)
	rec=$(as $EVIL getfattr --only-values -n user.coresink.entry "$T/cores/$core" 2>/dev/null)
	for id in "$rec" "${rec#sha256:}"; do
		[ -n "$id" ] || continue
		printf 'MESSAGE_ID=%s\nMESSAGE=Process %s (raceapp) of user %s dumped core.\nSYSLOG_IDENTIFIER=coresink\nCORESINK_ENTRY=%s\nCOREDUMP_PID=%s\nCOREDUMP_UID=%s\nCOREDUMP_GID=%s\nCOREDUMP_SIGNAL=11\nCOREDUMP_COMM=raceapp\nCOREDUMP_EXE=-ex=shell touch %s\nCOREDUMP_FILENAME=%s\nCORESINK_RESULT=stored\n' \
			"$MESSAGE_ID" "$pid" $EVIL "$id" "$pid" $EVIL $EVIL "$PWNED" "$T/cores/$core" | as $EVIL logger --journald
		tries=$((tries + 1))
	done
	sleep 0.5
	kill -CONT "$stopped"
	wait $pid
	# The handler's own entry: its id is 32 hex digits (the attacker's were the record, and its digest).
	for _ in $(seq 100); do
		jctl -o export "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$pid" | tr -d '\0' | grep -qE '^CORESINK_ENTRY=[0-9a-f]{32}$' &&
			break
		sleep 0.1
	done
	RACE_PID=$pid RACE_RECORD=$rec RACE_TRIES=$tries
}
crash_race
check "the race: the attacker read the core's record ($RACE_RECORD) and sent $RACE_TRIES entries with it before the handler's" \
	test "$RACE_TRIES" -ge 1
check "  the record is no entry id: a digest (sha256:...)" matches "$RACE_RECORD" "^sha256:[0-9a-f]{64}$"
g=$(jctl -o json "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$RACE_PID" _UID=$EVIL |
	jq -r 'select(.CORESINK_ENTRY | test("^[0-9a-f]{32}$")) | .COREDUMP_FILENAME')
[ -n "$g" ] || fail "no entry of the race's crash from its handler, or no file in it"
out=$(ctl --since "$TEST_SINCE" list "$RACE_PID" 2>&1)
check "  root's list takes the handler's entry: $(grep -c " $RACE_PID " <<< "$out") row(s) of pid $RACE_PID" \
	test "$(grep -c " $RACE_PID " <<< "$out")" = 1
check "  and skips the early ones: $(grep skipped <<< "$out")" matches "$out" "entries with coresink's MESSAGE_ID skipped"
out=$(ctl --since "$TEST_SINCE" info "$RACE_PID" 2>&1)
check "  info shows the handler's executable, not the attacker's words" \
	both has "$out" "$T/evilapp" -- lacks "$out" "-ex=shell"
ctl --since "$TEST_SINCE" dump -o "$T/race.core" "$RACE_PID" > /dev/null 2>&1
f=$g
case $f in *.zst) zstd -q -d -c "$f" > "$T/race.stored" ;; *) cp "$f" "$T/race.stored" ;; esac
check "  dump gives the crash's own core ($(basename "$f"))" cmp -s "$T/race.core" "$T/race.stored"

# The same race, not held: the attacker watches the core directory (inotify), and at the first sight of their
# crash's core reads its record and sends an entry with it, while the real handler goes on.
mkdir -p "$T/drop" && chmod 1777 "$T/drop"
mkfifo "$T/drop/events" && chmod 0666 "$T/drop/events"
# inotifywait and the reader both the attacker's, each by its pid, neither holding this test's output.
setpriv --reuid=$EVIL --regid=$EVIL --clear-groups inotifywait -q -m -e create,moved_to --format %f "$T/cores" \
	> "$T/drop/events" 2> /dev/null &
INOTIFY=$!
at_exit "kill $INOTIFY 2>/dev/null"
setpriv --reuid=$EVIL --regid=$EVIL --clear-groups bash -c 'while read -r f; do
	case $f in core.watchapp.*) ;; *) continue ;; esac
	r=$(getfattr --only-values -n user.coresink.entry "$1/$f" 2>/dev/null)
	for id in "$r" "${r#sha256:}"; do
		printf "MESSAGE_ID=%s\nMESSAGE=forged\nSYSLOG_IDENTIFIER=coresink\nCORESINK_ENTRY=%s\nCOREDUMP_PID=%s\nCOREDUMP_UID=%s\nCOREDUMP_EXE=-ex=shell touch %s\nCORESINK_RESULT=stored\n" \
			"$3" "$id" "$(cut -d. -f3 <<< "$f")" "$(id -u)" "$4" | logger --journald
	done
	echo "$r" > "$2"
	break
done < "$1/../drop/events"' _ "$T/cores" "$T/drop/watched" "$MESSAGE_ID" "$PWNED" > /dev/null 2>&1 &
WATCHER=$!
at_exit "kill $WATCHER 2>/dev/null"
sleep 0.5
crash_run setpriv --reuid=$EVIL --regid=$EVIL --clear-groups "$T/evilapp" -c watchapp 4
WPID=$CRASH_PID
for _ in $(seq 100); do
	[ -s "$T/drop/watched" ] && jctl -o json "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$WPID" _UID=$EVIL |
		jq -e 'select(.CORESINK_ENTRY | test("^[0-9a-f]{32}$"))' > /dev/null 2>&1 && break
	sleep 0.1
done
kill $WATCHER $INOTIFY 2>/dev/null
check "a user watching with inotify saw their core's record as it appeared: $(cut -c1-20 "$T/drop/watched" 2>/dev/null)..." \
	test -s "$T/drop/watched"
out=$(ctl --since "$TEST_SINCE" list "$WPID" 2>&1)
check "  root's list takes the handler's entry of that crash ($(grep -c " $WPID " <<< "$out") row), the watcher's are skipped" \
	test "$(grep -c " $WPID " <<< "$out")" = 1

# 7. Another host's signatures, bidi controls and NULs: escaped everywhere, not counted as a signature.
RLO=$'\xe2\x80\xae' LS=$'\xe2\x80\xa8'
printf 'evil\0/etc/shadow' > "$T/nul.bin"
{
	remote_entry 5 "MESSAGE=Process 5 dumped core." "COREDUMP_PID=5" "COREDUMP_UID=0" "COREDUMP_EXE=/usr/bin/gpj${RLO}exe" \
		"CORESINK_SIGNATURE="$'\r\n\t\v\f'"00000000001" "CORESINK_RESULT=stored" "COREDUMP_COMM=a${LS}b" \
		"CORESINK_ENTRY=5555f0f0f0f0f0f0f0f0f0f0f0f0f0f0"
	binfield COREDUMP_CMDLINE "$T/nul.bin"
	echo
} > "$T/fleet2.export"
mkdir -p "$T/fleet2"
"$REMOTE" --output="$T/fleet2/remote.journal" "$T/fleet2.export" > "$T/remote2.log" 2>&1 ||
	{ cat "$T/remote2.log"; fail "systemd-journal-remote (2)"; }
out=$("$CORESINK" --config "$T/c.conf" --summary -D "$T/fleet2" 2>&1)
check "summary -D: a signature of blanks, a line break and 11 digits is no signature: $(tail -n 1 <<< "$out" | cut -c1-80)" \
	both lacks "$out" "00000000001" -- has "$out" "without a signature"
check "  and nothing raw reaches the terminal" clean "$out"
j=$("$CORESINK" --config "$T/c.conf" --summary --json -D "$T/fleet2" 2>&1)
check "summary --json -D: valid JSON ($(jq -c .without_signature <<< "$j" 2>&1) without a signature)" \
	test "$(jq .without_signature <<< "$j")" = 1
out=$(ctl -D "$T/fleet2" list 2>&1)
check "-D list: a right-to-left override is escaped ($(grep -o 'gpj[^ ]*' <<< "$out"))" \
	both lacks "$out" "$RLO" -- has "$out" 'gpj\xe2\x80\xaeexe'
out=$(ctl -D "$T/fleet2" info 2>&1)
check "-D info: a NUL is shown, and what follows it: $(grep -o 'evil[^ ]*' <<< "$out" | head -n 1)" \
	has "$out" 'evil\x00/etc/shadow'
check "  a line separator is escaped" lacks "$out" "$LS"
j=$(ctl -D "$T/fleet2" info --json 2>&1)
check "-D info --json: valid, the NUL as \\u0000" both jq_valid "$j" -- has "$j" 'evil\u0000/etc/shadow'

# 8. Dates before 1970 and clocks that ran ahead.
out=$(ctl --until 1900-01-01 list 2>&1); rc=$?
check "--until 1900-01-01: refused (exit $rc), not this year's crashes" test $rc = 100
out=$(ctl --since 1969-12-31 list 2>&1); rc=$?
check "--since 1969-12-31: refused (exit $rc)" test $rc = 100
out=$(ctl --until 1900-01-01 remove --dry-run evilapp 2>&1); rc=$?
check "remove --until 1900-01-01: refused (exit $rc), nothing named" both test $rc = 100 -- lacks "$out" "core.evilapp"
future=$(ls "$T/cores" | grep '^core\.evilapp\.' | head -n 1)
touch -d '+2 days' "$T/cores/$future"
out=$(ctl vacuum --older-than=1h --dry-run 2>&1)
check "vacuum --older-than=1h: a core written in the future is taken as new, and said: $(grep -o 'in the future[^:]*' <<< "$out" | head -n 1)" \
	both lacks "$out" "would remove $future" -- has "$out" "in the future"
touch "$T/cores/$future"

# 9. A process that names itself as an option of the upload command (PR_SET_NAME "--upload-file"): ExecUpload='s
# %e never begins a word with '-'.
printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "%s/drop/args"\n' "$T" > "$T/args.sh" && chmod 0755 "$T/args.sh"
write_config "$T/u.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"ExecUpload=$T/args.sh %e x-%e"
use_handler "$T/u.conf"
crash_run setpriv --reuid=$EVIL --regid=$EVIL --clear-groups "$T/evilapp" -c --upload-file 4
for _ in $(seq 100); do [ -s "$T/drop/args" ] && break; sleep 0.1; done
check "a process named --upload-file: the upload command's words are $(tr '\n' ' ' < "$T/drop/args" 2>/dev/null)" \
	test "$(head -n 1 "$T/drop/args" 2>/dev/null)" = _-upload-file -a "$(sed -n 2p "$T/drop/args" 2>/dev/null)" = x---upload-file
use_handler "$T/c.conf"

check "no command of any entry ran, in all of it" no_pwn
[ "$THROUGH" -eq 0 ] || fail "$THROUGH attempts got through"
