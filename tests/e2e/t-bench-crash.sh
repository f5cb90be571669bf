#!/bin/bash
# coresink-bench --crash: real crashes of its own victim under each handler. Every stored core is read back against
# the victim's memory (a core cut by MaxCoreSize= is reported as FAILED, exit 1), socket mode through a server the
# bench starts and stops, judged against its own ceiling (null-socket) when the run has it, the CSV and chart are
# written,
# kernel.core_pattern is put back after a run and after a SIGTERM in the middle of one, and a second bench meanwhile
# is refused.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
BENCH=$B/coresink-bench
need_root "kernel.core_pattern"
scratch
# coresink's peak RSS comes from its journal entry: with a journald, the table shows it.
start_journald
before=$(cat /proc/sys/kernel/core_pattern)
limit_before=$(cat /proc/sys/kernel/core_pipe_limit)
# A file system of its own, so that the disk's counter (writ_MiB) counts the bench's writes and no one else's: on a
# shared disk, another writer took it to 97 MiB for one 33 MiB core. KeepFree=1G and a 437 MiB dense core fit in it.
# Its path is short: the handlers' config is named in kernel.core_pattern, 127 bytes at most with the rest.
D=$(mktemp -d /tmp/cb.XXXXXX) && at_exit "rmdir '$D'; rm -f '$D.img'" || fail "mktemp"
make_fs ext4 "$D" 2048

out=$("$BENCH" --crash --size 32M --runs 2 --workload threads --dir "$D" --coresink "$CORESINK" \
	--csv "$T/runs.csv" --plot "$T/chart.png" \
	--handlers readwrite,readwrite:Compress=no,readwrite:Compress=no:sparse=off,splice,socket:Compress=no,kernel,cat,null,null-socket,direct,readwrite:Encrypt=bench)
rc=$?
printf '%s\n' "$out"
check "the bench exits 0" test "$rc" -eq 0
rows=$(printf '%s\n' "$out" | sed -n '/^handler /,/^(release_s/p' | sed '1d;$d')
check "a row per handler, each verified (the compressed core read back through zstd, the encrypted through age)" \
	test "$(printf '%s\n' "$rows" | grep -c ' verified$')" -eq 11
check "the ceilings first" \
	test "$(printf '%s\n' "$rows" | head -n 3 | awk '{ print $1 }' | sort | tr '\n' ' ')" = "direct null null-socket "
# Columns: handler, release_s and its ratio, stored_s and its ratio, min, max, size, disk, written, cache, rss, cpu.
col() { printf '%s\n' "$rows" | awk -v h="$1" -v c="$2" '$1 == h { print $c }'; }
# Each ratio is the median over the larger ceiling of the handler's mode (the table's seconds are rounded: 5%).
ceiling() { col direct 4 | awk -v n="$(col "$1" 4)" '{ print ($1 > n ? $1 : n) }'; }
ratio_ok() { awk -v t="$(col "$1" "$2")" -v c="$(ceiling "$3")" -v r="$(col "$1" $(($2 + 1)))" \
	'BEGIN { d = t / c - r; exit !(c > 0 && d * d <= (0.05 * r + 0.02) ^ 2) }'; }
check "pipe mode's ratios are over null's or direct's: release $(col readwrite 3), stored $(col readwrite 5)" \
	eval 'ratio_ok readwrite 2 null && ratio_ok readwrite 4 null'
check "socket mode's are over null-socket's or direct's: release $(col socket:Compress=no 3)" \
	ratio_ok socket:Compress=no 2 null-socket
# The 50 idle threads' stacks are holes in a sparse core, as in the kernel's own file; Sparse=no stores them.
disk() { col "$1" 9; }
size=$(col readwrite:Compress=no 8)
check "sparse: $(disk readwrite:Compress=no) MiB on disk of a $size MiB core, as the kernel's $(disk kernel)" \
	test "$(disk readwrite:Compress=no)" -le $(( $(disk kernel) + 2 )) -a "$(disk readwrite:Compress=no)" -lt $((size / 4))
check "socket mode (coresink --serve) stores the same sparse core: $(disk socket:Compress=no) MiB" \
	test "$(disk socket:Compress=no)" -le $(( $(disk readwrite:Compress=no) + 1 ))
check "compressed (the default): $(disk readwrite) MiB, no more than the sparse core's" \
	test "$(disk readwrite)" -le $(( $(disk readwrite:Compress=no) + 1 ))
release() { col "$1" 2; }
stored() { col "$1" 4; }
check "the process is let go ($(release readwrite) s) before the compressed file is there ($(stored readwrite) s)" \
	awk -v r="$(release readwrite)" -v s="$(stored readwrite)" 'BEGIN { exit !(r <= s) }'
# at_most VALUE MAX: VALUE is a count (not the table's "-": no counter, no journald) of at most MAX.
at_most() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -le "$2" ]; }
written=$(col readwrite 10)
# One write: the compressed core as it came, no raw copy first (at most 1.1x the file and 16 MiB).
check "the disk wrote $written MiB for the compressed core of $(disk readwrite) MiB: one write" \
	at_most "$written" $(( $(disk readwrite) * 11 / 10 + 16 ))
rss=$(col readwrite 12)
check "coresink's peak RSS from its entry: $rss KiB, within 8 MiB" eval 'at_most "$rss" 8192 && [ "$rss" -gt 0 ]'
# Its CPU: a pipe-mode handler is in no cgroup of the bench's, so the entry's CORESINK_CPU_USEC says it, on any host.
cpu=$(col readwrite 13)
check "coresink's CPU from its entry: $cpu s" awk -v c="$cpu" 'BEGIN { exit !(c ~ /^[0-9.]+$/ && c > 0 && c < 10) }'
# Of each crash's release, the dumping thread's sleep (held by its handler) and its wait for a CPU, from schedstat:
# there for every crash, within its release (a handler that holds the process is checked below), none for direct.
held_ok() { awk -v h="$(col "$1" 15)" -v q="$(col "$1" 16)" -v r="$(col "$1" 2)" \
	'BEGIN { exit !(h ~ /^[0-9.]+$/ && q ~ /^[0-9.]+$/ && h + q <= r + 0.01) }'; }
check "held and runq within the release: readwrite $(col readwrite 15)+$(col readwrite 16) of $(col readwrite 2) s, null $(col null 15)" \
	eval 'held_ok readwrite && held_ok null && held_ok socket:Compress=no && test "$(col direct 15)" = -'
check "Sparse=no stores it dense ($(disk readwrite:Compress=no:sparse=off) MiB)" \
	test "$(disk readwrite:Compress=no:sparse=off)" -ge "$size"
check "the CSV has a header and a row per crash" test "$(wc -l < "$T/runs.csv")" -eq 23
check "the chart is a PNG" test "$(head -c 4 "$T/chart.png" | tail -c 3)" = PNG
check "kernel.core_pattern is back" test "$(cat /proc/sys/kernel/core_pattern)" = "$before"
check "its scratch directory is gone" test -z "$(ls -A "$D" | grep -vx lost+found)"

out=$("$BENCH" --crash --size 8M --runs 1 --dir "$T" --coresink "$CORESINK" --handlers readwrite:MaxCoreSize=4K:Compress=no,null)
rc=$?
check "a core cut short is reported as FAILED" has "$out" "FAILED 1 of 1"
check "and the bench exits 1" test "$rc" -eq 1

# A handler of one's own: given the file, it stores what it reads; one that stores nothing is FAILED.
mine=$(mktemp /tmp/coresink-handler.XXXXXX) && chmod 0755 "$mine" && at_exit "rm -f '$mine'"
# It waits a second before it reads: the dying process, its pipe full, sleeps that second, which held_s must show.
printf '#!/bin/sh\nsleep 1\nexec cat > "$1"\n' > "$mine"
out=$("$BENCH" --crash --size 8M --runs 1 --dir "$T" --handlers "exec:$mine,null")
row=$(printf '%s\n' "$out" | grep "^exec:")
check "exec:PATH: its core is the victim's memory" has "$row" " verified"
held=$(printf '%s\n' "$row" | awk '{ print $15 }')
check "a handler that waits a second before it reads holds the process that long: held_s $held" \
	awk -v h="$held" 'BEGIN { exit !(h ~ /^[0-9.]+$/ && h >= 0.9) }'
printf '#!/bin/sh\nexec cat > /dev/null\n' > "$mine"
out=$("$BENCH" --crash --size 8M --runs 1 --dir "$T" --handlers "exec:$mine,null")
check "exec:PATH that stores nothing: FAILED" has "$out" "FAILED 1 of 1"
"$BENCH" --crash --handlers exec:relative/path --dir "$T" > /dev/null 2>&1
check "exec: with a path that is not absolute is a usage error (100)" test $? -eq 100

"$BENCH" --crash --handlers readwrite:NoSuchKey=1 --dir "$T" --coresink "$CORESINK" > /dev/null 2>&1
check "a knob coresink would not take is a usage error (100)" test $? -eq 100
"$BENCH" --crash --handlers nonsense --dir "$T" > /dev/null 2>&1
check "an unknown handler is a usage error (100)" test $? -eq 100
err=$("$BENCH" --crash --handlers readwrite --dir "$T" --coresink "$T/no-such-coresink" 2>&1 >/dev/null)
check "no coresink where it is run from: said so ($err)" has "$err" "no coresink at $T/no-such-coresink"
check "nothing left after a usage error" test -z "$(ls -A "$T" | grep -v -e runs.csv -e chart.png)"

# Interrupted in the middle of a run: the kernel's setting comes back all the same.
"$BENCH" --crash --size 512M --runs 8 --dir "$T" --coresink "$CORESINK" --handlers readwrite,cat > /dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ "$(cat /proc/sys/kernel/core_pattern)" != "$before" ] && break
	sleep 0.05
done
during=$(cat /proc/sys/kernel/core_pattern)
# A second one meanwhile would save the first's settings as the machine's, and put them back at its end.
err=$("$BENCH" --crash --size 8M --runs 1 --dir "$T" --handlers null 2>&1 >/dev/null)
rc=$?
check "a second bench meanwhile is refused (status $rc): $err" eval '[ "$rc" -eq 111 ] &&
	has "$err" "another coresink-bench --crash is running"'
check "and leaves the first's kernel.core_pattern alone" test "$(cat /proc/sys/kernel/core_pattern)" = "$during"
sleep 0.5
kill -TERM "$pid"
wait "$pid"
rc=$?
check "SIGTERM ends the bench (status $rc)" test "$rc" -eq 143
check "and kernel.core_pattern is back" test "$(cat /proc/sys/kernel/core_pattern)" = "$before"
check "and so is kernel.core_pipe_limit" test "$(cat /proc/sys/kernel/core_pipe_limit)" = "$limit_before"
