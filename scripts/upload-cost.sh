#!/bin/bash
# upload-cost.sh [RUNS]: what ExecUpload= costs per crash, with coresink-upload-rclone to rclone's own WebDAV server
# on 127.0.0.1: the median of RUNS (5) crashes holding 64 MiB, stored compressed (the default), of the upload's wall
# time after the entry (CORESINK_UPLOAD_USEC) and of the CPU it took (the upload user's processes, user + system,
# from their cgroup-free accounting: times of a replay of the same command on the same file). Needs root, a build,
# rclone, jq, a journald (the tests' own is started when none runs) and the coresink-upload user. docs/fleet.md.
set -u
cd "$(dirname "$0")/.." || exit 1
NAME=upload-cost
. tests/e2e/lib.sh
RUNS=${1:-5}
scratch
chmod 0755 "$T"
start_journald
port=$(( 20000 + $$ % 20000 ))
mkdir -p "$T/store"
printf '[dav]\ntype = webdav\nurl = http://127.0.0.1:%s\nvendor = other\n' "$port" > "$T/rclone.conf"
chown root:coresink-upload "$T/rclone.conf" && chmod 0640 "$T/rclone.conf"
rclone serve webdav --addr "127.0.0.1:$port" "$T/store" >/dev/null 2>&1 &
DAV=$!
at_exit "kill $DAV"
sleep 1
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"Compress=yes" "ExecUpload=$TOP/scripts/upload-rclone.sh dav:cores/%H --config $T/rclone.conf"
use_handler "$T/c.conf"
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for _ in $(seq "$RUNS"); do
	crash 64
	for _ in $(seq 100); do
		u=$(jctl -o json MESSAGE_ID=37d0a70e75c44cf88f269bffb484bb14 "COREDUMP_PID=$CRASH_PID" | jq -r .CORESINK_UPLOAD_USEC)
		[ -n "$u" ] && break
		sleep 0.1
	done
	echo "$u" >> "$T/wall"
	f=$(ls "$T"/cores/core.* | head -n 1)
	# The same command on the same file, for its CPU time.
	TIMEFORMAT='%U %S'
	{ time setpriv --reuid=coresink-upload --regid=coresink-upload --clear-groups env CORESINK_CORE="$f" \
		"$TOP/scripts/upload-rclone.sh" dav:replay --config "$T/rclone.conf" < "$f" 3</dev/null >/dev/null 2>&1; } \
		2>> "$T/cpu"
	stat -c %s "$f" >> "$T/size"
	rm -f "$T"/cores/core.*
done
echo "upload wall time after the entry, median of $RUNS: $(( $(median < "$T/wall") / 1000 )) ms for a stored core of" \
	"$(median < "$T/size") bytes; CPU (user + system): $(awk '{ print $1 + $2 }' "$T/cpu" | median) s"
