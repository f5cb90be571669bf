#!/bin/bash
# coresinkctl on real crashes, against this machine's coredumpctl on the same entries: list (its JSON, row for row),
# info (every field both print), dump (byte for byte), debug (gdb's backtrace). remove and vacuum against the
# directory and the ledger (the count MaxUse is judged by is what the directory holds, right after), each removal
# journaled. A user who may read every journal (group systemd-journal) sees only their own crash, and is told how
# many others are hidden. Entries nobody forged (coresink's MESSAGE_ID, sshd's crash, /etc/passwd as its core) are
# neither listed, dumped nor removed, and the list stays whole. Bad matches, a core already removed and a truncated
# journal file: a clear error and exit code, nothing removed. status says the pattern, the mode and the room.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern, starts systemd-journald and removes cores"
command -v gdb > /dev/null || skip "no gdb"
# Without systemd-coredump (coredumpctl), coresinkctl is checked on its own; with it, each verb against it too.
have_cdctl() { command -v coredumpctl > /dev/null; }
have_cdctl || ok "no coredumpctl here (systemd-coredump): coresinkctl is checked on its own"
scratch
CTL=$B/coresinkctl
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "Compress=yes" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
# This test's own crashes, on a journal that has lived (run.sh's seed.sh, other tests', a machine's): since its start,
# and of its own program (its own path, its own comm).
ctl() { "$CTL" --config "$T/c.conf" --since "$TEST_SINCE" "$@"; }
cp "$CRASHER" "$T/crasher" || fail "copying the crasher"
EXE=$T/crasher
own_crash() { crash_run "$EXE" -c ctlcrash "$1"; KMSG_SEQ=${KMSG_SEQ:-0} crash_log "$CRASH_PID" > /dev/null; }

# Crashes: root's two, and one of a regular user's (uid 4242), whose core the handler lets them read.
USER_ID=4242
own_crash 4
P1=$CRASH_PID
own_crash 2
P2=$CRASH_PID
chmod 0755 "$T"
HOME=$T crash_run setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$EXE" -c ctlcrash 1
PU=$CRASH_PID
journal_entry "$PU" > /dev/null || fail "no entry of the user's crash"
check "three real crashes, the user's too ($P1 $P2 $PU)" test -n "$PU" -a "$PU" != null

# What the window already holds that coresink did not write (seed.sh's or another test's forgery of the second
# before this test began: TEST_SINCE leaves one), so that this test's own two are counted.
skipped_of() { sed -n "s/^coresinkctl: \([0-9]*\) entries with coresink's MESSAGE_ID skipped.*/\1/p" <<< "$1"; }
skipped0=$(skipped_of "$(ctl list 2>&1 > /dev/null)")
skipped0=${skipped0:-0}

# Forged by nobody: sshd's crash as root's, /etc/passwd as its core, and a core name of a real crash's directory.
forge_sshd_entry || fail "logger --journald as nobody"
sleep 0.5

# list, against coredumpctl's JSON for the same crashes.
ours=$(ctl --json=short list "$EXE")
check "list --json: the three crashes: $(jq -c '[.[].pid]' <<< "$ours")" test "$(jq -r '[.[].pid] | join(" ")' <<< "$ours")" = "$P1 $P2 $PU"
if have_cdctl; then
# By the pids: coredumpctl aborts on an entry without COREDUMP_UID (a forgery of the test before, within the second
# TEST_SINCE leaves) and lists nothing.
theirs=$(coredumpctl --since "$TEST_SINCE" --json=short list "$P1" "$P2" "$PU" 2>/dev/null | jq -c "[.[] | select((.pid == $P1 or .pid == $P2 or .pid == $PU) and .exe != \"/usr/sbin/sshd\")]")
diff <(jq -S . <<< "$ours") <(jq -S . <<< "$theirs") | head -n 20 >&2
check "list --json: the crashes coredumpctl lists, field for field: $(jq -c '[.[].pid]' <<< "$ours")" \
	test "$(jq -S -c . <<< "$ours")" = "$(jq -S -c . <<< "$theirs")"
fi
# The user copies their own crash's entry id (root sealed it) onto an entry of theirs that names sshd.
uid_entry=$(jctl -o json "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$PU" | tail -n 1 | jq -r .CORESINK_ENTRY)
printf 'MESSAGE_ID=%s\nMESSAGE=Process %s (sshd) of user %s dumped core.\nSYSLOG_IDENTIFIER=coresink\nCOREDUMP_PID=%s\nCOREDUMP_UID=%s\nCOREDUMP_EXE=/usr/sbin/sshd\nCORESINK_ENTRY=%s\n' \
	"$MESSAGE_ID" "$PU" "$USER_ID" "$PU" "$USER_ID" "$uid_entry" |
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups logger --journald || fail "logger as the user"
sleep 0.5
if have_cdctl; then
	out=$(ulimit -c 0; coredumpctl --since "$TEST_SINCE" --json=short list 2>&1); rc=$?
	ok "coredumpctl list on the user's copy (no COREDUMP_GID or SIGNAL): exit $rc, $(tail -n 1 <<< "$out" | cut -c1-80)"
fi
check "list: nobody's forged sshd crash is not among them" fails has "$(ctl list 2>/dev/null)" /usr/sbin/sshd
check "list: nor the user's copy of their own sealed entry" test "$(ctl --json=short list "$PU" | jq -r '[.[].exe] | join(" ")')" = "$EXE"
skipped=$(ctl list 2>&1 > /dev/null)
check "list: both are said to be skipped ($skipped0 before them): $skipped" test "$(skipped_of "$skipped")" = $((skipped0 + 2))
check "list: the table's columns" has "$(ctl list 2>/dev/null | head -n 1)" "TIME"
check "list -1: the newest crash only" test "$(ctl -1 --json=short list ctlcrash | jq -r '.[].pid')" = "$PU"
check "list -n 2 -r: the newest two, newest first" test "$(ctl -n 2 -r --json=short list ctlcrash | jq -r '[.[].pid] | join(" ")')" = "$PU $P2"
check "list by PID, by COMM, by EXE, by FIELD=VALUE" bash -c "
	test \"\$('$CTL' --config '$T/c.conf' --since '$TEST_SINCE' --json=short list $P1 | jq length)\" = 1 &&
	test \"\$('$CTL' --config '$T/c.conf' --since '$TEST_SINCE' --json=short list ctlcrash | jq length)\" = 3 &&
	test \"\$('$CTL' --config '$T/c.conf' --since '$TEST_SINCE' --json=short list $EXE | jq length)\" = 3 &&
	test \"\$('$CTL' --config '$T/c.conf' --since '$TEST_SINCE' --json=short list COREDUMP_EXE=$EXE COREDUMP_UID=$USER_ID | jq length)\" = 1"

# info: every field both print, the message with its stack trace.
ci=$(ctl info "$P1")
check "info: the crash, its storage and its stack trace" all_of_re "$ci" "^ +PID: $P1 \\(ctlcrash\\)$" \
	"^ +Storage: .*/cores/core\\.ctlcrash\\.$P1\\..* \\(present\\)$" "^ +#0 +0x[0-9a-f]+ crash_here "
if have_cdctl; then
	di=$(cdctl info "$P1" 2>/dev/null)
	for f in PID UID GID Signal "Command Line" Executable "Control Group" "Boot ID" "Machine ID" Hostname Storage \
		"Size on Disk" Package; do
		check "info: $f as coredumpctl says it" test "$(grep -m1 "^ *$f: " <<< "$ci")" = "$(grep -m1 "^ *$f: " <<< "$di")"
	done
	check "info: the stack trace, line for line" test "$(sed -n '/Message:/,$p' <<< "$ci")" = "$(sed -n '/Message:/,$p' <<< "$di")"
fi

# dump: the stored core's bytes, as coredumpctl dumps them, and the crashed process's memory.
ctl dump "$P1" > "$T/ours" || fail "coresinkctl dump $P1"
if have_cdctl; then
	cdctl dump "$P1" > "$T/theirs" 2>/dev/null
	check "dump: byte for byte coredumpctl's ($(stat -c %s "$T/ours") bytes)" cmp -s "$T/ours" "$T/theirs"
fi
check "dump: the process's memory" "$PATCHECK" "$T/ours" 4
check "dump -o FILE" bash -c "'$CTL' --config '$T/c.conf' dump -o '$T/out' $P2 && test -s '$T/out'"
check "dump refuses a terminal" fails quiet script -qec "'$CTL' --config '$T/c.conf' dump $P1" /dev/null

# debug: gdb's backtrace of the core, as coredumpctl debug gives it.
ours=$(ctl debug -A "-batch -ex bt" "$P1" 2>/dev/null | grep '^#')
check "debug: gdb's backtrace names the crashing function: $(head -n 1 <<< "$ours")" has "$ours" crash_here
if have_cdctl; then
	theirs=$(cdctl debug "$P1" --debugger-arguments="-batch -ex bt" 2>/dev/null | grep '^#')
	check "debug: gdb's backtrace, frame for frame coredumpctl's" test "$ours" = "$theirs"
fi

# Journals collected elsewhere (-D, --file): the same crashes; this machine's, so their cores are here.
mkdir -p "$T/collected" && cp /run/log/journal/*/*.journal "$T/collected/" 2>/dev/null
check "-D DIR: the journal files copied elsewhere list the same crashes" \
	test "$(ctl -D "$T/collected" --json=short list ctlcrash | jq -r '[.[].pid] | join(" ")')" = "$P1 $P2 $PU"
check "--file FILE: too" test "$(ctl --file "$(ls "$T"/collected/*.journal | head -n 1)" --json=short list "$P1" | jq -r '.[].pid')" = "$P1"

# A user who may read every journal sees only their own crash, and is told of the others.
as_reader() { setpriv --reuid=$USER_ID --regid=$USER_ID --groups="$(getent group systemd-journal | cut -d: -f3)" "$@"; }
if getent group systemd-journal > /dev/null; then
	# A journald of the test's own has not had systemd-tmpfiles give its files to the group, as a system's has.
	[ -n "${JOURNALD_PID:-}" ] && chgrp -R systemd-journal /run/log/journal && chmod -R g+rX /run/log/journal
	out=$(as_reader "$CTL" --config "$T/c.conf" --since "$TEST_SINCE" --json=short list 2>"$T/err")
	check "as a user: only their own crash (their own copy of it is theirs to see): $(jq -c '[.[].pid]' <<< "$out")" \
		test "$(jq -r '[.[].pid] | unique | join(" ")' <<< "$out")" = "$PU"
	check "as a user: permission denied, and how many hidden: $(cat "$T/err")" matches "$(cat "$T/err")" "permission denied: ([2-9]|[1-9][0-9]+) crash\\(es\\) of other users hidden"
	check "as a user: dump of their own core" as_reader "$CTL" --config "$T/c.conf" --since "$TEST_SINCE" dump -o /dev/null "$PU"
	check "as a user: no dump of root's" fails quiet as_reader "$CTL" --config "$T/c.conf" --since "$TEST_SINCE" dump -o /dev/null "$P1"
	check "as a user: no remove" fails quiet as_reader "$CTL" --config "$T/c.conf" remove "$PU"
fi

# The forged entry: not dumped, not removed; passwd untouched.
check "forged: no dump of sshd's 'core'" fails quiet ctl dump -o "$T/f" 1
check "forged: no remove" fails quiet ctl remove 1
check "forged: /etc/passwd is still there" test -s /etc/passwd

# remove: the core, the ledger's count right after, an entry that says what and why.
before=$(ls "$T/cores" | grep -c '^core\.')
check "remove --dry-run removes nothing" bash -c "'$CTL' --config '$T/c.conf' --since '$TEST_SINCE' remove --dry-run $P1 | grep -q 'would remove' && test \$(ls '$T/cores' | grep -c '^core\.') = $before"
ctl remove "$P1" > "$T/rm" || fail "coresinkctl remove $P1"
check "remove: the core is gone: $(head -n 1 "$T/rm")" test "$(ls "$T/cores" | grep -c '^core\.')" = $((before - 1))
published=$(sed -n 's/^published //p' "$T/cores/.coresink.state")
held=$(find "$T/cores" -maxdepth 1 -name 'core.*' -printf '%b\n' | awk '{ s += $1 * 512 } END { print s + 0 }')
check "remove: the ledger counts what the directory holds ($published = $held bytes)" test "$published" = "$held"
check "remove: journaled, with what and why" has "$(jctl -o cat MESSAGE_ID=7b1bd7b3a7a2497e9b1cb8b3c3c0f1d2)" "removed by uid 0 (coresinkctl remove)"
check "list: the removed crash's core is missing" test "$(ctl --json=short list "$P1" | jq -r '.[].corefile')" = missing
check "dump of a removed core: a clear error, exit 1" bash -c "'$CTL' --config '$T/c.conf' --since '$TEST_SINCE' dump -o /dev/null $P1 2>&1 | grep -q 'not there'; test \${PIPESTATUS[0]} -eq 1"

# vacuum: by age (a core dated 10 days back goes, a newer one stays), and by size.
old=$(ls "$T/cores" | grep '^core\.' | head -n 1)
touch -d '10 days ago' "$T/cores/$old"
check "vacuum --older-than=7d --dry-run names only the old core" test "$(ctl vacuum --older-than=7d --dry-run)" = "would remove $old"
ctl vacuum --older-than=7d > /dev/null || fail "vacuum --older-than"
check "vacuum --older-than=7d removed it, and only it" test ! -e "$T/cores/$old" -a "$(ls "$T/cores" | grep -c '^core\.')" = $((before - 2))
ctl vacuum --max-use=0 > /dev/null || fail "vacuum --max-use=0"
check "vacuum --max-use=0: no core left, the ledger says 0" test "$(ls "$T/cores" | grep -c '^core\.')" = 0 -a "$(sed -n 's/^published //p' "$T/cores/.coresink.state")" = 0
check "list still whole after it all: three crashes, cores missing" test "$(ctl --json=short list ctlcrash | jq -r '[.[].corefile] | join(" ")')" = "missing missing missing"

# Bad input: a clear error and exit code, nothing removed.
check "a bad match: usage error (100)" bash -c "'$CTL' --config '$T/c.conf' list '' 2>/dev/null; test \$? -eq 100"
check "no match: 'No coredumps found.', exit 1" bash -c "'$CTL' --config '$T/c.conf' list 999999999 2>&1 | grep -q 'No coredumps found'; test \${PIPESTATUS[0]} -eq 1"
check "remove without a match refuses (100)" bash -c "'$CTL' --config '$T/c.conf' remove 2>/dev/null; test \$? -eq 100"
check "vacuum without a bound refuses (100)" bash -c "'$CTL' --config '$T/c.conf' vacuum 2>/dev/null; test \$? -eq 100"
jf=$(ls /run/log/journal/*/system.journal | head -n 1)
head -c 4096 "$jf" > "$T/cut.journal"
out=$("$CTL" --config "$T/c.conf" --file "$T/cut.journal" list 2>&1); rc=$?
check "a truncated journal file: an error, not a crash of coresinkctl (exit $rc: $(head -n 1 <<< "$out"))" test "$rc" -eq 1 -o "$rc" -eq 111

# status.
st=$(ctl status ctlcrash)
check "status: the live pattern and its mode" has "$st" "mode:             pipe mode, coresink's"
check "status: whether this kernel serves socket mode" matches "$st" "^socket mode: +(served|not served) by this kernel"
both() { has "$1" "$2" && has "$1" "$3"; }
check "status: the room against MaxUse and KeepFree" both "$st" "cores take:" "KeepFree=64.0 MiB"
check "status: the last crash" has "$st" "pid $PU"
check "summary, check-config and retry-uploads are verbs too" bash -c "
	'$CTL' --config '$T/c.conf' summary --json | jq -e .signatures > /dev/null &&
	'$CTL' --config '$T/c.conf' check-config | grep -q '^Directory=$T/cores' &&
	'$CTL' --config '$T/c.conf' retry-uploads"

# list --follow: the crashes there are, then each new one within a second of its entry, once; a forged entry never.
# As root, rows; as a user who may read every journal, their own crash only, as JSON objects, once root sealed it.
# exec: the pid kept is coresinkctl's own, which stop_started ends (a function run in the background is a shell whose
# end left coresinkctl running for good).
(exec "$CTL" --config "$T/c.conf" --since "$TEST_SINCE" list --follow ctlcrash) > "$T/follow" 2> "$T/follow.err" &
FOLLOW_PID=$!
at_exit "stop_started FOLLOW_PID"
if getent group systemd-journal > /dev/null; then
	(exec setpriv --reuid=$USER_ID --regid=$USER_ID --groups="$(getent group systemd-journal | cut -d: -f3)" \
		"$CTL" --config "$T/c.conf" --since "$TEST_SINCE" --json=short list -f) > "$T/ufollow" 2> "$T/ufollow.err" &
	UFOLLOW_PID=$!
	at_exit "stop_started UFOLLOW_PID"
fi
# following: true once FILE has a line that holds TEXT, within 3 s.
following() { for _ in $(seq 60); do grep -qF -- "$2" "$1" && return 0; sleep 0.05; done; return 1; }
sleep 1
first=$(ctl list ctlcrash | tail -n +2 | awk '{ print $5 }' | tr '\n' ' ')
check "list --follow: the legend, then the crashes there are: $(tail -n +2 "$T/follow" | awk '{ print $5 }' | tr '\n' ' ')" \
	test "$(head -n 1 "$T/follow" | awk '{ print $1, $2 }')" = "TIME PID" -a \
	"$(tail -n +2 "$T/follow" | awk '{ print $5 }' | tr '\n' ' ')" = "$first"
forge_sshd_entry
own_crash 1
P3=$CRASH_PID
e_at=$(date +%s%N)
following "$T/follow" " $P3 " && shown_ms=$(( ($(date +%s%N) - e_at) / 1000000 ))
check "list --follow: a new crash shown ${shown_ms:-never} ms after its entry was read back" test "${shown_ms:-9999}" -le 1000
sleep 1
check "  once: $(grep -c " $P3 " "$T/follow") row(s), and the forged sshd entry never" \
	test "$(grep -c " $P3 " "$T/follow")" = 1 -a -z "$(grep sshd "$T/follow")"
HOME=$T crash_run setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$EXE" -c ctlcrash 1
PU2=$CRASH_PID
journal_entry "$PU2" > /dev/null || fail "no entry of the user's second crash"
if [ -n "${UFOLLOW_PID:-}" ]; then
	following "$T/ufollow" "\"pid\":$PU2," || true
	sleep 0.5
	check "list -f --json as the user: one object a line, their crashes only, the new one once: $(jq -sc '[.[].pid]' "$T/ufollow" 2>&1)" \
		test "$(jq -sr '[.[].pid] | join(" ")' "$T/ufollow" 2>/dev/null)" = "$PU $PU2"
fi
check "list --follow as root: the user's crash too" following "$T/follow" " $PU2 "
check "list --follow: still running, nothing on stderr ($(cat "$T/follow.err"))" \
	test -z "$(cat "$T/follow.err")" -a -n "$(ps -o pid= -p "$FOLLOW_PID")"
check "--follow is list's alone (100)" bash -c "'$CTL' --config '$T/c.conf' info --follow 2>/dev/null; test \$? -eq 100"

# A user's crash whose trace is longer than the 64 KiB a reader takes of an entry's field at first (entryfields.c):
# its seal is compared with the whole field, asked of the journal again, and root still takes the entry for
# coresink's, with its trace whole.
HOME=$T crash_run setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$EXE" -T 400 -c ctlcrash 1
PU3=$CRASH_PID
journal_entry "$PU3" > /dev/null || fail "no entry of the user's crash of 400 threads"
len=$(jctl --all -o json "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$PU3" | jq -r '.MESSAGE | length' | sort -n | tail -n 1)
check "a user's crash of 400 threads: its MESSAGE of $len bytes, more than 64 KiB" test "${len:-0}" -gt 65536
check "list as root: that sealed entry is coresink's" test "$(ctl list "$PU3" | grep -c " $PU3 ")" = 1
n=$(ctl info "$PU3" | grep -c 'Stack trace of thread')
check "info: its trace as the entry has it, $n threads of 401" test "$n" = "$(jctl -o cat "MESSAGE_ID=$MESSAGE_ID" \
	"COREDUMP_PID=$PU3" | grep -c 'Stack trace of thread')" -a "$n" -gt 300
