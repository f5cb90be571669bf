#!/bin/bash
# A crash storm: 48 real crashes within seconds, 12 at a time, against a small MaxUse on a small tmpfs. The quota
# holds at every moment (sampled every 100 us: one chunk of slack at most), KeepFree too, no temporary file
# remains, and every crash has exactly one journal entry.
. "$(dirname "$0")/lib.sh"
need_root "it mounts a tmpfs, sets kernel.core_pattern and starts systemd-journald"
scratch
start_journald
MIB=$((1024 * 1024))
make_fs tmpfs "$T/fs" 160
write_config "$T/c.conf" "Directory=$T/fs/cores" "KeepFree=16M" "MaxUse=48M" "ChunkSize=1M" \
	"RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
base=$(( $(stat -f -c %b "$T/fs") * $(stat -f -c %S "$T/fs") - $(avail "$T/fs") ))

"$FREEWATCH" "$T/fs" > "$T/low" & watch=$!
pids=()
t0=$(date +%s%N)
# The shell's notices of the crashes are expected; keep them out of the output.
{
	for wave in 1 2 3 4; do
		wave_pids=()
		for i in $(seq 12); do
			( ulimit -c unlimited; exec "$CRASHER" 6 ) &
			wave_pids+=($!)
		done
		wait "${wave_pids[@]}"
		pids+=("${wave_pids[@]}")
	done
} 2>/dev/null
t1=$(date +%s%N)
kill -TERM "$watch"; wait "$watch"
read -r low samples < "$T/low"
total=$(( $(stat -f -c %b "$T/fs") * $(stat -f -c %S "$T/fs") ))
peak=$(( total - low - base ))

declare -A results
missing=0 vacuumed=0
for p in "${pids[@]}"; do
	e=$(journal_entry "$p") || { missing=$((missing + 1)); continue; }
	[ "$(printf '%s\n' "$e" | grep -c '^MESSAGE_ID=')" -eq 1 ] || fail "several entries for pid $p"
	r=$(printf '%s\n' "$e" | sed -n 's/^CORESINK_RESULT=//p')
	results[$r]=$(( ${results[$r]:-0} + 1 ))
	v=$(printf '%s\n' "$e" | sed -n 's/^CORESINK_VACUUMED=//p')
	vacuumed=$((vacuumed + ${v:-0}))
done
kept=$(cat "$T"/fs/cores/core.* 2>/dev/null | wc -c)
summary=$(for r in "${!results[@]}"; do printf '%s %s, ' "${results[$r]}" "$r"; done)
echo "storm: ${#pids[@]} crashes in $(( (t1 - t0) / 1000000 )) ms: ${summary%, };" \
	"$vacuumed old cores removed; $(entries "$T/fs/cores" | wc -l) cores kept, $kept B;" \
	"peak use $peak B of MaxUse $((48 * MIB)) B; lowest free $low B of KeepFree $((16 * MIB)) B ($samples samples)"
check "every crash has exactly one journal entry" test "$missing" -eq 0
check "cores were stored" test "${results[stored]:-0}" -gt 0
check "every crash was stored or cut at the quota: none failed or suppressed" \
	test $(( ${results[stored]:-0} + ${results[truncated]:-0} )) -eq "${#pids[@]}"
check "the quota held at every sample, one chunk of slack at most ($peak B)" test "$peak" -le $((49 * MIB))
check "the quota holds at the end ($kept B)" test "$kept" -le $((48 * MIB))
check "the reserve held ($low B)" test "$low" -ge $((16 * MIB))
check "no temporary or stray file remains" test -z "$(entries "$T/fs/cores" | grep -v '^core\.crasher\.')"
