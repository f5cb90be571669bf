#!/bin/bash
# No user takes capture from the others (socket mode, docs/storms.md): Mallory, an unprivileged user, crashes four
# processes whose dumps the kernel reads slowly (a file-backed private mapping dumped from her own FUSE mount, whose
# every read takes 20 s: coredump_filter 0x37) and a crash loop of 15 programs, twice each; meanwhile Alice, another
# user, crashes once. Alice's crash is stored, whole and at once: Mallory's crashes hold at most
# SocketMaxParallelPerUser slots (half of SocketMaxParallel=4), her slow dumps are abandoned after SocketSilenceSec
# (what came kept, and said), her loop is limited by RateLimitUserBurst before it can use up RateLimitGlobalBurst, and
# her cores past MaxUsePerUser make room from her own. Before, her slow dumps held every slot for SocketTimeoutSec
# (five minutes) while Alice's crash waited in the listen queue.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it mounts a FUSE file system, sets kernel.core_pattern, starts a server and acts as other users"
need_socket_mode
PY=/usr/bin/python3
$PY -c 'import fusepy' 2> /dev/null || skip "no python3-fusepy (Debian's python3 with fusepy)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
scratch
chmod 0755 "$T"
start_journald
MALLORY=54401 ALICE=54402

# A FUSE file system of a 64 MiB file whose every read takes 20 s: what the kernel reads to dump a file-backed
# private mapping when coredump_filter asks it to (0x37).
mkdir -p "$T/fuse"
cat > "$T/slowfs.py" <<'PY'
import errno, stat, sys, time
from fusepy import FUSE, Operations
SIZE = 64 << 20
class Slow(Operations):
    def getattr(self, path, fh=None):
        if path == "/":
            return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=2)
        if path == "/blob":
            return dict(st_mode=stat.S_IFREG | 0o644, st_nlink=1, st_size=SIZE)
        raise OSError(errno.ENOENT, "")
    def readdir(self, path, fh):
        return [".", "..", "blob"]
    def read(self, path, size, offset, fh):
        time.sleep(20)
        return b"\x5a" * min(size, max(0, SIZE - offset))
FUSE(Slow(), sys.argv[1], foreground=True, allow_other=True)
PY
$PY "$T/slowfs.py" "$T/fuse" > "$T/fuse.log" 2>&1 &
FUSE_PID=$!
at_exit "umount -l '$T/fuse' 2>/dev/null; stop_started FUSE_PID"
for _ in $(seq 50); do [ -e "$T/fuse/blob" ] && break; sleep 0.1; done
[ -e "$T/fuse/blob" ] || { cat "$T/fuse.log"; skip "the FUSE file system did not mount"; }
cat > "$T/slowcrash.py" <<'PY'
import mmap, os, signal, sys
with open("/proc/self/coredump_filter", "w") as f:
    f.write("0x37")
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
os.kill(os.getpid(), signal.SIGSEGV)
PY
cp "$PY" "$T/slowapp" && chmod 0755 "$T/slowapp"

write_config "$T/c.conf" "Directory=$T/cores" "Socket=$T/sock/kernel.socket" "KeepFree=64M" "MaxUse=96M" \
	"SocketMaxParallel=4" "SocketSilenceSec=3s" "StackTrace=no" "Compress=no" "RateLimitIntervalSec=600" \
	"RateLimitBurst=5" "RateLimitUserBurst=10" "RateLimitGlobalBurst=20"
start_server "$T/c.conf"
use_socket "$T/c.conf"
as() { local id=$1; shift; setpriv --reuid="$id" --regid="$id" --clear-groups "$@"; }

# Mallory's slow dumps, then her loop, all at once and in the background.
t0=$(date +%s.%N)
slow=() loop=()
{
	for i in 1 2 3 4; do
		( ulimit -c unlimited; exec setpriv --reuid=$MALLORY --regid=$MALLORY --clear-groups "$T/slowapp" \
			"$T/slowcrash.py" "$T/fuse/blob" ) &
		slow+=($!)
	done
	sleep 0.5
	for p in $(seq 15); do cp "$CRASHER" "$T/loop$p"; done
	for round in 1 2; do
		for p in $(seq 15); do
			( ulimit -c unlimited; exec setpriv --reuid=$MALLORY --regid=$MALLORY --clear-groups "$T/loop$p" 1 ) &
			loop+=($!)
		done
	done
} 2> /dev/null
sleep 1
# Alice's one crash, while all of Mallory's are in hand or waiting.
cp "$CRASHER" "$T/aliceapp"
a0=$(date +%s.%N)
crash_run setpriv --reuid=$ALICE --regid=$ALICE --clear-groups "$T/aliceapp" 8
APID=$CRASH_PID
e=$(journal_entry "$APID") || fail "no entry of Alice's crash"
a1=$(date +%s.%N)
secs=$(echo "$a1 - $a0" | bc)
check "Alice's crash, beside Mallory's storm: $(field "$e" CORESINK_RESULT) in ${secs} s" \
	test "$(field "$e" CORESINK_RESULT)" = stored
check "  within 10 s of her crash (Mallory's slow dumps do not hold every slot)" \
	test "$(echo "$secs < 10" | bc)" = 1
check "  and whole: $("$PATCHECK" "$(field "$e" COREDUMP_FILENAME)" 8 2>&1 | head -n 1)" \
	"$PATCHECK" "$(field "$e" COREDUMP_FILENAME)" 8

# Every slow crash of Mallory's gets its one entry soon (3 s of silence each, two at a time), though her processes
# stay in their dumps' reads for as long as her file system likes.
matches=()
for p in "${slow[@]}"; do matches+=("COREDUMP_PID=$p"); done
for _ in $(seq 600); do
	n=$(jctl -q -o export "MESSAGE_ID=$MESSAGE_ID" "${matches[@]}" | tr -d '\0' | sed -n 's/^COREDUMP_PID=//p' | sort -u | wc -l)
	[ "$n" = 4 ] && break
	sleep 0.1
done
t1=$(date +%s.%N)
results=""
for p in "${slow[@]}"; do
	e=$(entry_where "COREDUMP_PID=$p") || { results="$results none"; continue; }
	results="$results $(field "$e" CORESINK_RESULT)/$(field "$e" CORESINK_LIMIT)"
done
{ for p in "${slow[@]}" "${loop[@]}"; do wait "$p"; done; } 2> /dev/null
# Each one admitted is abandoned at its silence; those admitted after her loop are her own user limit's.
check "Mallory's slow dumps, abandoned after SocketSilenceSec (what came kept), or suppressed by her own limit:$results" \
	test "$(tr ' ' '\n' <<< "$results" | grep -c '^truncated/SocketSilenceSec$')" -ge 1 -a \
		"$(tr ' ' '\n' <<< "$results" | grep -cE '^(truncated/SocketSilenceSec|suppressed/)$')" = 4
check "  all four said within 60 s of the storm: $(echo "$t1 - $t0" | bc) s (SocketTimeoutSec is 300 s)" \
	test "$(echo "$t1 - $t0 < 60" | bc)" = 1
stored=0 by_user=0 loopres=""
for p in "${loop[@]}"; do
	e=$(entry_where "COREDUMP_PID=$p") || { loopres="$loopres none"; continue; }
	loopres="$loopres $(field "$e" CORESINK_RESULT)"
	[ "$(field "$e" CORESINK_RESULT)" = stored ] && stored=$((stored + 1))
	has "$(field "$e" MESSAGE)" "user crash-rate limit" && by_user=$((by_user + 1))
done
refused=$(tr ' ' '\n' <<< "$loopres" | grep -c '^failed$')
check "Mallory's loop of 30 crashes: the user's limit took her ($stored of her crashes stored in all, $by_user suppressed by RateLimitUserBurst)" \
	test "$by_user" -gt 0
# Alice's second crash, now: the global budget still has room for her.
crash_run setpriv --reuid=$ALICE --regid=$ALICE --clear-groups "$T/aliceapp" 4
e=$(journal_entry "$CRASH_PID") || fail "no entry of Alice's second crash"
check "Alice's second crash, after Mallory's loop: $(field "$e" CORESINK_RESULT) (the global window is not Mallory's alone)" \
	test "$(field "$e" CORESINK_RESULT)" = stored
printf '| user | crashes | what each got |\n| --- | --- | --- |\n| Mallory, slow dumps (FUSE) | 4 |%s |\n| Mallory, loop (15 programs, twice) | 30 | %s stored, %s suppressed by RateLimitUserBurst, %s refused (192 of hers waiting already) |\n| Alice | 2 | stored, the first in %s s |\n' \
	"$results" "$stored" "$by_user" "$refused" "$secs" | tee "$B/fairness.md"
