#!/bin/bash
# Socket mode as its units run it, without the units: the server in a network namespace of its own with nothing in
# it (coresink.service's PrivateNetwork=), the door to the network as systemd's socket activation runs
# coresink-net@.service (systemd-socket-activate --accept --inetd: one `coresink --net-door` per connection, on
# its standard input), with the host's network. A stripped program and its library with their debug files behind
# elfutils' debuginfod, and ExecUpload= with rclone to a WebDAV server, both on 127.0.0.1. Without the door, the
# server fetches nothing and sends nothing (what the units did before); through it, the trace names every frame and
# the core arrives at the crash, byte for byte. With the door down: the entry says so, and the core is kept for the
# retry timer. (The VM tier proves the same under the package's own units, tests/vm/guest.sh.)
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern, serves the coredump socket and runs the fetch step as coresink-debuginfod"
need_socket_mode
for tool in debuginfod cc objcopy strip rclone unshare systemd-socket-activate jq; do
	command -v $tool > /dev/null || skip "no $tool"
done
id coresink-debuginfod > /dev/null 2>&1 || skip "no user coresink-debuginfod: run through tests/e2e/run.sh"
scratch
chmod 0755 "$T"
start_journald
UPLOAD_ID=37d0a70e75c44cf88f269bffb484bb14

# The program and its library, stripped; their debug files served.
mkdir -p "$T/store" "$T/etc"
stripped_pair "$T/bin" doorprog "$T/bin"
PORT=$(( 20000 + ($$ * 3) % 20000 ))
serve_debuginfo "$T/bin/served" "$PORT" "$T/bin/doorprog"
DAV=$((PORT + 1))
rclone serve webdav --addr "127.0.0.1:$DAV" "$T/store" > "$T/dav.log" 2>&1 &
DAVP=$!
at_exit "kill $DAVP 2>/dev/null; wait $DAVP 2>/dev/null"
for _ in $(seq 50); do ss -ltn 2>/dev/null | grep -q "127.0.0.1:$DAV " && break; sleep 0.1; done
printf '[dav]\ntype = webdav\nurl = http://127.0.0.1:%s\nvendor = other\n' "$DAV" > "$T/etc/rclone.conf"
chown root:coresink-upload "$T/etc/rclone.conf" && chmod 0640 "$T/etc/rclone.conf"

# setup NAME: a config of its own, socket mode. The server (with DOOR=yes: the door's path in its environment), in
# a network namespace of its own.
setup() {
	local d=$T/$1
	write_config "$d.conf" "Directory=$d" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "Socket=$T/$1.socket" \
		"DebuginfodURLs=http://127.0.0.1:$PORT" "DebuginfodTimeoutSec=10s" \
		"ExecUpload=$TOP/scripts/upload-rclone.sh dav:cores --config $T/etc/rclone.conf --retries 1 --low-level-retries 1"
	DIR=$d CONF=$d.conf
}
# serve: the server for CONF as its unit has it, where it matters to what it reads and hands on: no network of its
# own (PrivateNetwork=), a mount namespace of its own (every crash is then analysed in the process's own root), and
# RestrictSUIDSGID='s seccomp filter, which refuses openat2() (nosuid); and the door where DOOR names one.
serve() {
	: > "$T/server.log"
	setsid unshare --net --mount env ${DOOR:+CORESINK_NETDOOR=$DOOR} "$B/nosuid" "$CORESINK" --config "$CONF" --serve \
		>> "$T/server.log" 2>&1 &
	SERVER_PID=$!
	at_exit "stop_server"
	for _ in $(seq 50); do grep -q 'serving the coredump socket' "$T/server.log" && break; sleep 0.1; done
	grep -q 'serving the coredump socket' "$T/server.log" || { cat "$T/server.log"; fail "the server did not listen"; }
	use_socket "$CONF"
}
# door: the door at $T/net.socket, with the host's network, as coresink-net.socket starts coresink-net@.service.
door() {
	DOOR=$T/net.socket
	systemd-socket-activate --accept --inetd -l "$DOOR" "$CORESINK" --config "$CONF" --net-door \
		> "$T/door.log" 2>&1 &
	DOOR_PID=$!
	at_exit "stop_started DOOR_PID"
	for _ in $(seq 50); do [ -S "$DOOR" ] && break; sleep 0.1; done
}
frames() { jctl -o cat COREDUMP_PID="$1" MESSAGE_ID=$MESSAGE_ID | sed -n '/^Stack trace of thread/,/^$/p' |
	sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^ ]*\) .*/\1/p' | head -n 3 | tr '\n' ' '; }
upload_of() {
	for _ in $(seq 150); do
		u=$(jctl -o json "MESSAGE_ID=$UPLOAD_ID" "COREDUMP_PID=$1" 2>/dev/null | tail -n 1)
		[ -n "$u" ] && { jq -r '"\(.CORESINK_UPLOAD) attempt \(.CORESINK_UPLOAD_ATTEMPT): \(.MESSAGE)"' <<< "$u"; return 0; }
		sleep 0.1
	done
	return 1
}

# 1. Without the door, as the units were: no network in the server, so no fetch and no upload.
setup nodoor
DOOR="" serve
check "the server has no network: only an unconfigured loopback in its namespace" \
	test "$(nsenter -t "$SERVER_PID" -n ip -o link show up 2>/dev/null | grep -c .)" = 0
crash_run "$T/bin/doorprog"
e=$(journal_entry "$CRASH_PID") || fail "no entry without the door"
check "without the door: nothing fetched: $(field "$e" CORESINK_DEBUGINFO | cut -c1-150)" \
	matches "$(field "$e" CORESINK_DEBUGINFO)" "fetched 0"
u=$(upload_of "$CRASH_PID") || fail "no upload entry without the door"
check "without the door: not sent at the crash: $(cut -c1-150 <<< "$u")" matches "$u" "^pending attempt 1"
stop_server

# 2. Through the door: fetched, named, sent, at the crash.
setup door
door
serve
crash_run "$T/bin/doorprog"
e=$(journal_entry "$CRASH_PID") || fail "no entry through the door"
check "through the door: both fetched: $(field "$e" CORESINK_DEBUGINFO | cut -c1-150)" \
	matches "$(field "$e" CORESINK_DEBUGINFO)" "fetched 2: "
check "the trace names every frame: $(frames "$CRASH_PID")" test "$(frames "$CRASH_PID")" = "door_crash door_level main "
check "analysed in the process's own root, as under the unit: $(field "$e" CORESINK_TRACE_SANDBOX)" \
	has "$(field "$e" CORESINK_TRACE_SANDBOX)" "process-root"
u=$(upload_of "$CRASH_PID") || fail "no upload entry through the door"
core=$(field "$e" COREDUMP_FILENAME)
check "through the door: sent at the crash: $(cut -c1-150 <<< "$u")" matches "$u" "^sent attempt 1"
check "the core arrived byte for byte, its JSON beside it" \
	bash -c "cmp -s '$core' '$T/store/cores/$(basename "$core")' && jq -e .COREDUMP_PID '$T/store/cores/$(basename "$core").json' > /dev/null"
check "the cache is the door's fetch user's" test "$(stat -c %U "$DIR/.debuginfo")" = coresink-debuginfod

# 2b. A server a hostile core has taken over speaks the door's wire (as root, as the server runs): the stored core's
# name, with fields that are no crash's (LD_PRELOAD=, PATH=, CORESINK_CORE=, HTTPS_PROXY=). The door refuses the
# whole request, says so, and runs nothing: the library, preloaded, would leave a mark as UploadUser.
mkdir -p "$T/drop" && chmod 1777 "$T/drop"
printf '#include <stdio.h>\n__attribute__((constructor)) static void mark(void) { FILE *f = fopen("%s/drop/preloaded", "w"); if (f) fclose(f); }\n' "$T" > "$T/evil.c"
cc -shared -fPIC -o "$T/evil.so" "$T/evil.c" && chmod 0755 "$T/evil.so" || fail "building the preload library"
forge() {
	python3 - "$DOOR" "$(basename "$core")" "$@" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
items = [a.encode() for a in sys.argv[2:]]
s.sendall(b"U" + struct.pack("<I", len(items)) + b"".join(struct.pack("<I", len(i)) + i for i in items))
n = struct.unpack("<I", s.recv(4))[0]
print(s.recv(n).decode(errors="replace"))
PY
}
since=$(date '+%Y-%m-%d %H:%M:%S')
said=$(forge "COREDUMP_PID=$CRASH_PID" "LD_PRELOAD=$T/evil.so" "PATH=$T/drop" "CORESINK_CORE=/etc/shadow" \
	"HTTPS_PROXY=http://127.0.0.1:9")
check "a forged server's upload with LD_PRELOAD= and friends: refused ($said)" matches "$said" "^refused"
sleep 1
check "  nothing ran: no mark of the preloaded library" test ! -e "$T/drop/preloaded"
check "  and it is said: $(journalctl --no-pager --since "$since" -o cat | grep -m1 'door to the network' | cut -c1-140)" \
	bash -c "journalctl --no-pager --since '$since' -o cat | grep -q 'asked of the door to the network, refused'"
said=$(forge "COREDUMP_PID=$CRASH_PID" "COREDUMP_EXE=/bin/x"$'\n'"LD_PRELOAD=$T/evil.so")
check "a value the handler never writes (a second line that names LD_PRELOAD): refused ($said)" matches "$said" "^refused"

# 3. The door down: said, and the core kept for the retry timer.
stop_server
stop_started DOOR_PID
rm -f "$T/net.socket"
setup doordown
serve
crash_run "$T/bin/doorprog"
e=$(journal_entry "$CRASH_PID") || fail "no entry with the door down"
check "the door down: the entry says why nothing was fetched: $(field "$e" CORESINK_DEBUGINFO | cut -c1-150)" \
	matches "$(field "$e" CORESINK_DEBUGINFO)" "the door to the network .* could not be asked"
u=$(upload_of "$CRASH_PID") || fail "no upload entry with the door down"
check "and the upload is kept for the retry timer: $(cut -c1-150 <<< "$u")" \
	matches "$u" "^pending attempt 1: .*could not be started.*kept, to be tried again"
stop_server
