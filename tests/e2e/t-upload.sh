#!/bin/bash
# ExecUpload=, with rclone to a real WebDAV server on 127.0.0.1 (rclone serve webdav): the core and its JSON arrive
# byte for byte, sent as the upload user; with the server down the core stays, marked pending, and a retry sends it
# once the server is back; a command that hangs is killed at its deadline with what it started; one that fails is
# recorded; KeepAfterUpload=no removes a sent core; a hostile comm reaches the command as one safe word.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v rclone >/dev/null || skip "no rclone"
command -v jq >/dev/null || skip "no jq"
command -v getfattr >/dev/null || skip "no getfattr (attr)"
grep -q '^coresink-upload:' /etc/passwd || skip "no coresink-upload user (make install, or tests/e2e/run.sh, makes it)"
UPLOAD_ID=37d0a70e75c44cf88f269bffb484bb14
scratch
chmod 0755 "$T"
start_journald
port=$(( 20000 + ($$ * 7) % 20000 ))
mkdir -p "$T/store" "$T/etc"
printf '[dav]\ntype = webdav\nurl = http://127.0.0.1:%s\nvendor = other\n' "$port" > "$T/etc/rclone.conf"
# The credentials: root's, readable by the upload user's group only.
chown root:coresink-upload "$T/etc/rclone.conf" && chmod 0640 "$T/etc/rclone.conf"
HELPER=$TOP/scripts/upload-rclone.sh

# start_dav: the WebDAV server, unless it runs already (DAV_PID); stop_dav stops it.
start_dav() {
	[ -n "${DAV_PID:-}" ] && return 0
	rclone serve webdav --addr "127.0.0.1:$port" "$T/store" >"$T/dav.log" 2>&1 &
	DAV_PID=$!
	for _ in $(seq 50); do ss -ltn 2>/dev/null | grep -q "127.0.0.1:$port " && return 0; sleep 0.1; done
	fail "rclone serve webdav did not listen"
}
stop_dav() { stop_started DAV_PID; }
at_exit "stop_dav"

# upload_entry PID: the upload entry of PID's crash (the last attempt's) as NAME=value lines, its output's lines
# escaped as \n, waiting for it.
upload_entry() {
	for _ in $(seq 100); do
		u=$(jctl -r -n 1 -o json "MESSAGE_ID=$UPLOAD_ID" "COREDUMP_PID=$1" 2>/dev/null |
			jq -r 'to_entries[] | "\(.key)=\(.value | tostring | gsub("\n"; "\\n"))"')
		[ -n "$u" ] && { printf '%s\n' "$u"; return 0; }
		sleep 0.1
	done
	return 1
}

base=("Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0")
write_config "$T/c.conf" "${base[@]}" "ExecUpload=$HELPER dav:cores/%H --config $T/etc/rclone.conf --retries 1 --low-level-retries 1"
use_handler "$T/c.conf"

# Sent: the core and its JSON, byte for byte.
start_dav
crash 8
u=$(upload_entry "$CRASH_PID") || fail "no upload entry"
core=$(only_file "$T/cores") || exit 1
name=$(basename "$core")
host=$(hostname | tr -c 'A-Za-z0-9._+\n-' '_')
echo "     $(field "$u" MESSAGE)"; echo "     $(field "$u" CORESINK_UPLOAD_OUTPUT)"
check "sent: CORESINK_UPLOAD=sent" has_line "$u" "CORESINK_UPLOAD=sent"
check "sent: the core arrived byte for byte" cmp -s "$core" "$T/store/cores/$host/$name"
json=$T/store/cores/$host/$name.json
check "sent: its JSON beside it names the crash" test "$(jq -r .COREDUMP_PID "$json")" = "$CRASH_PID"
check "sent: the JSON holds the entry's fields, the stack trace too" has "$(jq -r .MESSAGE "$json")" "crash_here"
check "sent: and the crash's signature, as its entry says it: $(jq -r .CORESINK_SIGNATURE "$json")" test \
	"$(jq -r .CORESINK_SIGNATURE "$json")" = "$(field "$(journal_entry "$CRASH_PID")" CORESINK_SIGNATURE)" -a \
	"$(jq -r .CORESINK_SIGNATURE "$json" | wc -c)" -eq 17
check "sent: no pending mark on the core" test -z "$(getfattr --only-values -n user.coresink.upload "$core" 2>/dev/null)"
rm -f "$T"/cores/core.*

# The server down: the core stays, pending; back up, a retry sends it.
stop_dav
crash 8
u=$(upload_entry "$CRASH_PID") || fail "no upload entry"
core=$(only_file "$T/cores") || exit 1
check "server down: CORESINK_UPLOAD=pending ($(field "$u" CORESINK_UPLOAD_END), status $(field "$u" CORESINK_UPLOAD_STATUS))" \
	has_line "$u" "CORESINK_UPLOAD=pending"
check "server down: rclone's complaint is in the entry" matches "$u" "connection refused|dial tcp"
check "server down: the core is kept, marked pending" \
	matches "$(getfattr --only-values -n user.coresink.upload "$core" 2>/dev/null)" '^pending 1 [0-9]+$'
"$CORESINK" --config "$T/c.conf" --retry-uploads
check "retry before the backoff is over: nothing tried" has_line "$(upload_entry "$CRASH_PID")" "CORESINK_UPLOAD_ATTEMPT=1"
start_dav
"$CORESINK" --config "$T/c.conf" --retry-uploads --all || fail "--retry-uploads"
u=$(upload_entry "$CRASH_PID")
check "retry: sent, attempt 2" all_of "$u" "CORESINK_UPLOAD=sent" "CORESINK_UPLOAD_ATTEMPT=2"
check "retry: the core arrived byte for byte" cmp -s "$core" "$T/store/cores/$host/$(basename "$core")"
check "retry: its JSON too, from what the core says of itself" \
	test "$(jq -r .COREDUMP_PID "$T/store/cores/$host/$(basename "$core").json")" = "$CRASH_PID"
check "retry: the mark is gone" test -z "$(getfattr --only-values -n user.coresink.upload "$core" 2>/dev/null)"
rm -f "$T"/cores/core.*

# A command that hangs, with a child of its own: both killed at the deadline.
write_config "$T/c.conf" "${base[@]}" "ExecUpload=/bin/sh -c \"sleep 300 & sleep 300\"" "UploadTimeoutSec=1s"
crash 8
u=$(upload_entry "$CRASH_PID") || fail "no upload entry"
check "hangs: killed at the deadline ($(field "$u" CORESINK_UPLOAD_USEC) us)" \
	all_of "$u" "CORESINK_UPLOAD=pending" "CORESINK_UPLOAD_END=timed out"
check "hangs: after about a second" test "$(field "$u" CORESINK_UPLOAD_USEC)" -lt 3000000
sleep 0.5
check "hangs: nothing of it is left running" test -z "$(pgrep -u coresink-upload -f "^sleep 300$")"
rm -f "$T"/cores/core.*

# A command that fails: recorded with its status.
write_config "$T/c.conf" "${base[@]}" "ExecUpload=/bin/sh -c \"echo refusing; exit 3\""
crash 8
u=$(upload_entry "$CRASH_PID") || fail "no upload entry"
check "fails: exit status 3, its output recorded" \
	all_of "$u" "CORESINK_UPLOAD=pending" "CORESINK_UPLOAD_END=failed" "CORESINK_UPLOAD_STATUS=3"
check "fails: the message says so" has "$(field "$u" MESSAGE)" "failed (exit status 3)"
rm -f "$T"/cores/core.*

# KeepAfterUpload=no: a sent core is removed.
write_config "$T/c.conf" "${base[@]}" "ExecUpload=$HELPER dav:cores/%H --config $T/etc/rclone.conf --retries 1 --low-level-retries 1" \
	"KeepAfterUpload=no"
crash 8
u=$(upload_entry "$CRASH_PID") || fail "no upload entry"
check "KeepAfterUpload=no: sent" has_line "$u" "CORESINK_UPLOAD=sent"
check "KeepAfterUpload=no: the core is gone from the directory" test -z "$(entries "$T/cores")"

# A hostile comm: each specifier stays one word of safe bytes; the raw name only in the environment, as data.
write_config "$T/c.conf" "${base[@]}" "ExecUpload=/usr/bin/printf \"[%%s]\\n\" %e x%ey %P"
{ ( ulimit -c unlimited; exec "$CRASHER" -c 'a b;$(id)"' 8 ) & p=$!; wait $p; } 2>/dev/null
u=$(upload_entry "$p") || fail "no upload entry"
out=$(field "$u" CORESINK_UPLOAD_OUTPUT)
check "hostile comm: three words, sanitized: $out" test "$out" = '[a_b___id__]\n[xa_b___id__y]\n['"$p"']\n'

# Socket mode: the upload runs in a process of its own, so that the server's slot is free for the next crash: with
# one slot and a command that takes 31.5 s, two crashes in a row are both stored at once.
if have_socket_mode; then
	start_dav
	write_config "$T/k.conf" "${base[@]}" "Socket=$T/sock/kernel.socket" "SocketMaxParallel=1" \
		"ExecUpload=$HELPER dav:cores/%H --config $T/etc/rclone.conf"
	start_server "$T/k.conf"
	use_socket "$T/k.conf"
	crash 8
	u=$(upload_entry "$CRASH_PID") || fail "socket mode: no upload entry"
	check "socket mode: sent" has_line "$u" "CORESINK_UPLOAD=sent"
	check "socket mode: byte for byte" cmp -s "$(ls -t "$T"/cores/core.* | head -n 1)" \
		"$T/store/cores/$host/$(basename "$(ls -t "$T"/cores/core.* | head -n 1)")"
	write_config "$T/k.conf" "${base[@]}" "Socket=$T/sock/kernel.socket" "SocketMaxParallel=1" \
		"ExecUpload=/bin/sleep 31.5" "UploadTimeoutSec=60s"
	t0=$(date +%s%N)
	crash 8
	crash 8
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	check "socket mode: a slow upload holds no slot: two crashes stored in $ms ms" test "$ms" -lt 20000
	for p in $(pgrep -u coresink-upload -f '^/bin/sleep 31.5$'); do kill "$p"; done
	stop_server
	stop_dav
	use_handler "$T/c.conf"
else
	echo "SKIP $NAME: no socket mode here (Linux 6.17)"
fi

# account: of the cores stored in $T/small, PENDING are there and still marked, LOST were named in the entries of
# the crashes whose room they gave, STORED is how many crash entries named a file there.
account() {
	pending=0
	for f in "$T"/small/cores/core.*; do
		[ -n "$(getfattr --only-values -n user.coresink.upload "$f" 2>/dev/null)" ] && pending=$((pending + 1))
	done
	lost=$(jctl -o export "MESSAGE_ID=$MESSAGE_ID" | tr -d '\0' | sed -n 's/^CORESINK_VACUUMED_UNSENT=//p' |
		awk '{ s += $1 } END { print s + 0 }')
	stored=$(jctl -o export "MESSAGE_ID=$MESSAGE_ID" | tr -d '\0' | grep -c "^COREDUMP_FILENAME=$T/small/")
}

# A storm with uploads on and the network down: 12 crashes at once into a 64 MiB file system with MaxUse=20M. The
# quota and the reserve hold for the pending cores as for any; the pending cores removed to make room are named
# in the entries of the crashes that took it.
stop_dav
mount_tmpfs "$T/small" 64M
write_config "$T/s.conf" "Directory=$T/small/cores" "KeepFree=8M" "MaxUse=20M" "ChunkSize=1M" "RateLimitBurst=0" \
	"RateLimitGlobalBurst=0" "ExecUpload=$HELPER dav:cores/%H --config $T/etc/rclone.conf --retries 1 --low-level-retries 1"
use_handler "$T/s.conf"
storm_ready 1 12 4
storm_go 1
for p in $(cat "$T/pids.1"); do wait "$p" 2>/dev/null; done
handlers_done "$T/s.conf"
disk=$(du -sB1 "$T/small/cores" | cut -f1)
check "storm: the cores take no more than MaxUse=20M on disk ($disk B)" test "$disk" -le $((20 * 1024 * 1024))
check "storm: the reserve held ($(avail "$T/small") B free)" test "$(avail "$T/small")" -ge $((8 * 1024 * 1024))
account
check "storm: every stored core is pending or named lost ($pending pending + $lost lost of $stored stored)" \
	test $((pending + lost)) -eq "$stored"
tally $(cat "$T/pids.1")
echo "     storm: ${RESULTS[*]} (${!RESULTS[*]}), $MISSING without entry"

# One crash after the other, each core taking the room of the oldest pending one.
for _ in $(seq 6); do crash 6; done
handlers_done "$T/s.conf"
account
check "one after the other: pending cores were removed, and said lost ($lost)" test "$lost" -gt 0
check "one after the other: every stored core is pending or named lost ($pending + $lost of $stored)" \
	test $((pending + lost)) -eq "$stored"
