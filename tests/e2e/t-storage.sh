#!/bin/bash
# Storage=journal, as systemd-coredump's: the core's bytes in the entry (COREDUMP=), which coredumpctl info, dump and
# debug read; a minimal core there too; above JournalSizeMax, or with no journald, a file, and the entry says why.
# The fleet recipe: systemd-journal-upload carries the entries to a systemd-journal-remote on 127.0.0.1, where
# coredumpctl --directory lists the crash, shows its stack trace and dumps the core's own bytes.
# tier: fast (make check, and make check-all)
# journald: both (run again with a journald the test did not start: what it checks depends on whose it is)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v coredumpctl >/dev/null || skip "no coredumpctl (systemd-coredump)"
scratch
start_journald
base=("Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "Storage=journal")
write_config "$T/c.conf" "${base[@]}"
use_handler "$T/c.conf"

crash 2
e=$(journal_entry "$CRASH_PID") || fail "no entry"
check "Storage=journal: CORESINK_STORAGE=journal" has_line "$e" "CORESINK_STORAGE=journal"
check "Storage=journal: the crash's signature too: $(field "$e" CORESINK_SIGNATURE)" matches "$e" \
	"^CORESINK_SIGNATURE=[0-9a-f]{16}$"
check "no COREDUMP_FILENAME" lacks "$e" "COREDUMP_FILENAME="
handlers_done "$T/c.conf"
check "no file left in the directory: $(entries "$T/cores" | tr '\n' ' ')" test -z "$(entries "$T/cores")"
check "the message says where" has "$(entry_message "$CRASH_PID")" "bytes stored in the journal"
info=$(cdctl info "$CRASH_PID" 2>&1)
check "coredumpctl info: Storage: journal" has "$info" "Storage: journal"
check "coredumpctl info: the stack trace" has "$info" "crash_here"
cdctl dump "$CRASH_PID" -o "$T/dumped" >/dev/null 2>&1 || fail "coredumpctl dump"
check "coredumpctl dump: the core's own bytes, the process's memory in it" "$PATCHECK" "$T/dumped" 2
check "coredumpctl dump: as many bytes as the entry says" test "$(file_size "$T/dumped")" -eq "$(field "$e" CORESINK_SIZE)"
dbg=$(cdctl debug "$CRASH_PID" --debugger-arguments="-batch -ex bt" 2>&1)
check "coredumpctl debug: gdb shows the crashing frame" has "$dbg" "#0  crash_here"

# A core larger than the journal's files may grow (this test's journald keeps them under 12.8 MB on its 1 GiB tmpfs):
# journald takes the entry and drops it, saying so only in its own log. The handler looks for it, does not find it,
# and stores the core as a file.
if [ -n "${JOURNALD_PID:-}" ] && mountpoint -q /run/log/journal; then
	crash 32
	e=$(entry_where "COREDUMP_FILENAME=$(ls "$T"/cores/core.crasher.* 2>/dev/null | head -n 1)") ||
		fail "the entry after journald dropped the core"
	check "too large for the journal's files: stored as a file: $(field "$e" CORESINK_STORAGE)" \
		has "$e" "CORESINK_STORAGE=external: journald did not write the core"
	check "and the file is whole" "$PATCHECK" "$(field "$e" COREDUMP_FILENAME)" 32
	rm -f "$T"/cores/core.*
else
	echo "SKIP $NAME: a journald of this machine's: the dropped-entry case needs the test's own small journal"
fi

# A minimal core in the journal.
write_config "$T/c.conf" "${base[@]}" "Core=minimal"
crash 64
cdctl dump "$CRASH_PID" -o "$T/mini" >/dev/null 2>&1 || fail "coredumpctl dump (minimal)"
check "Core=minimal: a minimal core in the journal ($(file_size "$T/mini") bytes)" test "$(file_size "$T/mini")" -lt 4194304
check "Core=minimal: gdb finds the crashing frame in it" \
	has "$(gdb -q -batch -ex bt "$CRASHER" "$T/mini" 2>&1)" "#0  crash_here"

# Above JournalSizeMax: a file, and the entry says why.
write_config "$T/c.conf" "${base[@]}" "JournalSizeMax=1M"
crash 8
e=$(journal_entry "$CRASH_PID") || fail "no entry"
check "JournalSizeMax=1M: stored as a file: $(field "$e" CORESINK_STORAGE)" \
	matches "$e" '^CORESINK_STORAGE=external: [0-9]+ bytes, more than JournalSizeMax$'
check "JournalSizeMax=1M: the file is whole" "$PATCHECK" "$(field "$e" COREDUMP_FILENAME)" 8
rm -f "$T"/cores/core.*

# No journald where the handler looks (its socket gone, as in a private /run): a file, and the kernel log says why.
write_config "$T/c.conf" "${base[@]}"
cat > "$T/nojournal.sh" <<EOF
. "$TOP/tests/e2e/lib.sh"
"$CRASHER" -P 8 & p=\$!
for _ in \$(seq 100); do grep -q '^State:.*stopped' /proc/\$p/status 2>/dev/null && break; sleep 0.05; done
gcore -o "$T/live" \$p >/dev/null 2>&1
kill -9 \$p; wait \$p 2>/dev/null
"$CORESINK" --config "$T/c.conf" "\$(sh -c 'echo \$\$')" 0 0 11 "\$(date +%s)" "$UNLIMITED" host nojournal 1 "" \
	< "$T/live.\$p" || exit 1
EOF
kmsg_mark
in_private_ns "$T/nojournal.sh" || fail "the handler without journald"
check "no journald: the core is stored as a file" test -n "$(ls "$T"/cores/core.nojournal.* 2>/dev/null)"
check "no journald: the kernel log has the crash" has "$(kmsg_since)" "(nojournal)"

# The fleet: systemd-journal-upload to systemd-journal-remote on 127.0.0.1, then coredumpctl on the receiving side.
REMOTE=/lib/systemd/systemd-journal-remote
UPLOAD=/lib/systemd/systemd-journal-upload
if [ -x "$REMOTE" ] && [ -x "$UPLOAD" ]; then
	write_config "$T/c.conf" "${base[@]}"
	crash 2
	fleet_pid=$CRASH_PID
	# From this crash's entry on: a host's journal may hold years of other entries.
	cursor=$(jctl -o export "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$fleet_pid" | tr -d '\0' |
		sed -n 's/^__CURSOR=//p' | head -n 1)
	port=$(( 20000 + $$ % 20000 ))
	mkdir -p "$T/remote"
	"$REMOTE" --listen-http="127.0.0.1:$port" --output="$T/remote/all.journal" --split-mode=none >"$T/remote.log" 2>&1 &
	remote_pid=$!
	at_exit "kill $remote_pid 2>/dev/null; wait $remote_pid 2>/dev/null"
	for _ in $(seq 50); do ss -ltn 2>/dev/null | grep -q "127.0.0.1:$port " && break; sleep 0.1; done
	timeout 60 "$UPLOAD" --url="http://127.0.0.1:$port" --system --cursor="$cursor" --follow=no \
		--save-state="$T/upload.state" >"$T/upload.log" 2>&1 || { cat "$T/upload.log"; fail "journal-upload"; }
	kill "$remote_pid"; wait "$remote_pid" 2>/dev/null
	info=$(coredumpctl --no-pager --since "$TEST_SINCE" --directory="$T/remote" info "$fleet_pid" 2>&1)
	check "remote: coredumpctl --directory lists the crash" has "$info" "PID: $fleet_pid"
	check "remote: with its stack trace" has "$info" "crash_here"
	check "remote: Storage: journal" has "$info" "Storage: journal"
	coredumpctl --no-pager --since "$TEST_SINCE" --directory="$T/remote" dump "$fleet_pid" -o "$T/remote.core" >/dev/null 2>&1 ||
		fail "remote: coredumpctl dump"
	check "remote: coredumpctl dump gives the core's bytes" "$PATCHECK" "$T/remote.core" 2
else
	echo "SKIP $NAME: no systemd-journal-remote: the fleet recipe not tried"
fi
