#!/bin/bash
# NotifyDirectory= (docs/notify.md) on real crashes: a notifier that records its stdin gets the crash as coresinkctl
# info --json prints it, as UploadUser, with nothing of the crash in its environment; ten crashes of one program
# within NotifyIntervalSec notify once, and the next after it says how many were folded; a package leftover
# (*.dpkg-old) and a notifier others may write are not run (the second said); one that hangs is killed at
# NotifyTimeoutSec without holding the crash; the shipped webhook example posts to a real HTTP server on 127.0.0.1;
# socket mode notifies too.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
for t in jq curl python3; do command -v $t > /dev/null || skip "no $t"; done
id coresink-upload > /dev/null 2>&1 || skip "no user coresink-upload (make install or the package makes it)"
scratch
chmod 0755 "$T"
start_journald
ND=$T/notify.d
mkdir -m 0755 "$ND" "$T/got"
chown coresink-upload "$T/got"
# The recorder: its stdin, its environment and its uid, a file each per run.
cat > "$ND/10-record" <<EOF
#!/bin/sh
cat > "$T/got/\$\$.json"
env > "$T/got/\$\$.env"
id -u > "$T/got/\$\$.uid"
echo "recorded \$\$"
EOF
chmod 0755 "$ND/10-record"
cp "$ND/10-record" "$ND/10-record.dpkg-old"
base=("Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "NotifyDirectory=$ND")
write_config "$T/c.conf" "${base[@]}" "NotifyIntervalSec=3600"
use_handler "$T/c.conf"
NOTIFY_ID=$(sed -n 's/^#define CORESINK_NOTIFY_MESSAGE_ID "\(.*\)"$/\1/p' "$(dirname "$0")/../../src/lib/report/report.h")
# notified PID: the entry that says who was told of PID's crash, within 15 s.
notified() {
	local e
	for _ in $(seq 150); do
		e=$(jctl -o cat --output-fields=CORESINK_NOTIFY "MESSAGE_ID=$NOTIFY_ID" "COREDUMP_PID=$1")
		[ -n "$e" ] && { printf '%s\n' "$e"; return 0; }
		sleep 0.1
	done
	return 1
}
got() { ls "$T/got"/*.json 2>/dev/null | wc -l; }

crash 2
P=$CRASH_PID
said=$(notified "$P") || fail "no entry of the notification of $P"
check "one crash, one notification: $said" has "$said" "10-record: done in"
check "  the recorder ran once (not its .dpkg-old copy)" test "$(got)" = 1
j=$(cat "$T"/got/*.json)
check "  its stdin: valid JSON of the crash (PID $(jq -r .PID <<< "$j"), $(jq -r .Result <<< "$j"), NotifyFolded $(jq -r .NotifyFolded <<< "$j"))" \
	test "$(jq -r .PID <<< "$j")" = "$P" -a "$(jq -r .NotifyFolded <<< "$j")" = 0
info=$("$B/coresinkctl" --config "$T/c.conf" --since "$TEST_SINCE" --json=short info "$P")
check "  what coresinkctl info --json prints of it, field for field" \
	test "$(jq -S 'del(.NotifyFolded)' <<< "$j")" = "$(jq -S . <<< "$info")"
check "  as UploadUser (uid $(cat "$T"/got/*.uid))" test "$(cat "$T"/got/*.uid)" = "$(id -u coresink-upload)"
check "  nothing of the crash in its environment: $(cut -d= -f1 "$T"/got/*.env | sort | tr '\n' ' ')" \
	test -z "$(grep -E '^(COREDUMP|CORESINK_(CORE|RESULT|ENTRY)|LD_)' "$T"/got/*.env)"

# A crash loop: 9 more within the interval, no notification; the next after it says how many were folded.
for _ in $(seq 9); do crash 1; done
sleep 2
check "9 more crashes of the same program within NotifyIntervalSec: still one notification" test "$(got)" = 1
write_config "$T/c.conf" "${base[@]}" "NotifyIntervalSec=1"
sleep 1.1
crash 1
said=$(notified "$CRASH_PID") || fail "no notification after the interval"
last=$(ls -t "$T"/got/*.json | head -n 1)
folded=$(jctl -o cat --output-fields=CORESINK_NOTIFY_FOLDED "MESSAGE_ID=$NOTIFY_ID" "COREDUMP_PID=$CRASH_PID")
check "the next one after the interval says 9 were folded (its JSON: $(jq -r .NotifyFolded "$last"), its entry: $folded)" \
	test "$(jq -r .NotifyFolded "$last")" = 9 -a "$folded" = 9 -a "$(got)" = 2

# Not run: one others may write (said), one that hangs is killed at the deadline and the crash does not wait.
cp "$ND/10-record" "$ND/20-open" && chmod 0777 "$ND/20-open"
printf '#!/bin/sh\nexec sleep 1000\n' > "$ND/30-hang" && chmod 0755 "$ND/30-hang"
write_config "$T/c.conf" "${base[@]}" "NotifyIntervalSec=0" "NotifyTimeoutSec=2s"
t0=$(date +%s%N)
crash 1
took=$(( ($(date +%s%N) - t0) / 1000000 ))
said=$(notified "$CRASH_PID") || fail "no notification with a hanging notifier"
check "a notifier others may write: not run, and said" bash -c "journalctl --no-pager --since '$TEST_SINCE' -o cat | grep -q '20-open: not root.s, or others may write it: not run'"
check "a notifier that hangs: killed at NotifyTimeoutSec ($(grep -o '30-hang: [^;]*' <<< "$said"))" \
	matches "$said" "30-hang: timed out"
check "  and the crash did not wait for it (crash to entry: $took ms)" test "$took" -lt 2000
check "  the recorder ran all the same" has "$said" "10-record: done in"
rm -f "$ND/20-open" "$ND/30-hang"

# The shipped webhook, against a real HTTP server.
port=$(( 20000 + RANDOM % 20000 ))
python3 - "$port" "$T/posted" > "$T/http.log" 2>&1 <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        with open(sys.argv[2], 'ab') as f:
            f.write(body)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'ok\n')
    def log_message(self, *a):
        pass
http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
PY
HTTP_PID=$!
at_exit "stop_started HTTP_PID"
install -m 0755 "$(dirname "$0")/../../examples/notify.d/webhook" "$ND/40-webhook"
echo "http://127.0.0.1:$port/crash" > "$ND/40-webhook.url"
chmod 0644 "$ND/40-webhook.url"
# Until the server listens (a loaded machine took more than half a second once: curl's "Couldn't connect").
for _ in $(seq 100); do
	(exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break
	sleep 0.1
done
crash 1
said=$(notified "$CRASH_PID") || fail "no notification for the webhook"
for _ in $(seq 50); do [ -s "$T/posted" ] && break; sleep 0.1; done
check "the webhook example posted the crash (PID $(jq -r .PID "$T/posted" 2>/dev/null)): $(grep -o '40-webhook: [^;]*' <<< "$said")" \
	test "$(jq -r .PID "$T/posted" 2>/dev/null)" = "$CRASH_PID"

if have_socket_mode; then
	write_config "$T/s.conf" "${base[@]}" "NotifyIntervalSec=0" "Socket=$T/kernel.sock"
	start_server "$T/s.conf"
	use_socket "$T/s.conf"
	crash 1
	said=$(notified "$CRASH_PID") || fail "no notification in socket mode"
	check "socket mode: notified too: $(grep -o '10-record: [^;]*' <<< "$said")" has "$said" "10-record: done in"
	stop_server
fi
