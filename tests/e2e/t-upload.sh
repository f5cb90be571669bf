#!/bin/bash
# ExecUpload=, with rclone to a real WebDAV server on 127.0.0.1 (rclone serve webdav): the core and its JSON arrive
# byte for byte, sent as the upload user; with the server down the core stays, marked pending, and a retry sends it
# once the server is back; a command that hangs is killed at its deadline with what it started; one that fails is
# recorded; KeepAfterUpload=no removes a sent core; a hostile comm reaches the command as one safe word.
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

start_dav() {
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
