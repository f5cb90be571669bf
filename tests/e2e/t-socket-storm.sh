#!/bin/bash
# A storm through the coredump socket: 100 real crashes in 10 s, one every 100 ms, to one coresink --serve (4 at a
# time, the others queued by the kernel), while pipe-mode handlers store 20 cores into the same directory, against
# a small MaxUse and KeepFree, on tmpfs and on ext4. None is lost: every crash has exactly one entry, none failed;
# the quota and the reserve hold at every sample (100 us) and at the end; no temporary file remains; the kernel
# dropped nothing for a full queue.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it mounts file systems, sets kernel.core_pattern and starts a server"
need_socket_mode
scratch
start_journald
MIB=$((1024 * 1024))
head -c $((3 * MIB)) /dev/urandom > "$T/in"

# storm FSTYPE FIRST: one storm on a 160 MiB file system of that type; the piped cores get pids from FIRST + 1.
storm() {
	local fs=$T/fs-$1 first=$2 i base t0 t1 low samples total peak kept pids=()
	make_fs "$1" "$fs" 160
	write_config "$T/c.conf" "Directory=$fs/cores" "Socket=$T/sock/kernel.socket" "KeepFree=16M" "MaxUse=48M" \
		"ChunkSize=1M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
	start_server "$T/c.conf"
	use_socket "$T/c.conf"
	base=$(( $(stat -f -c %b "$fs") * $(stat -f -c %S "$fs") - $(avail "$fs") ))
	"$FREEWATCH" "$fs" > "$T/low" & watch=$!
	at_exit "kill $watch 2>/dev/null"
	kmsg_mark
	t0=$(date +%s%N)
	# Pipe mode on the same directory meanwhile, as a second handler would be: its ledger is the same file.
	(
		for i in $(seq 20); do
			"$CORESINK" --config "$T/c.conf" $((first + i)) 0 0 11 "$(date +%s)" "$UNLIMITED" host piped 1 "" \
				< "$T/in"
			sleep 0.4
		done
	) & piper=$!
	# The shell's notices of the crashes are expected; keep them out of the output.
	{
		for i in $(seq 100); do
			( ulimit -c unlimited; exec "$CRASHER" 4 ) &
			pids+=($!)
			sleep 0.1
		done
		wait "${pids[@]}" "$piper"
	} 2>/dev/null
	t1=$(date +%s%N)
	echo "$1: crashes done in $(( (t1 - t0) / 1000000 )) ms"
	tally "${pids[@]}" $(seq $((first + 1)) $((first + 20)))
	kill -TERM "$watch"; wait "$watch"
	read -r low samples < "$T/low"
	stop_server
	total=$(( $(stat -f -c %b "$fs") * $(stat -f -c %S "$fs") ))
	peak=$(( total - low - base ))
	kept=$(du -B1 -c "$fs"/cores/core.* 2>/dev/null | tail -n 1 | cut -f1)
	echo "socket storm ($1): 100 crashes and 20 piped cores in $(( (t1 - t0) / 1000000 )) ms: $SUMMARY;" \
		"$(entries "$fs/cores" | wc -l) cores kept, ${kept:-0} B on disk; peak use $peak B of MaxUse" \
		"$((48 * MIB)) B; lowest free $low B of KeepFree $((16 * MIB)) B ($samples samples)"
	check "$1: every crash and piped core has exactly one journal entry" test "$MISSING" -eq 0
	check "$1: every one was stored or cut at the quota: none failed, none suppressed" \
		test $(( ${RESULTS[stored]:-0} + ${RESULTS[truncated]:-0} )) -eq 120
	check "$1: the socket's crashes were handled in socket mode" \
		has_line "$(journal_entry "${pids[99]}")" "CORESINK_MODE=socket"
	check "$1: the kernel dropped none for a full queue" lacks "$(kmsg_since)" "receive queue full"
	check "$1: the quota held at every sample, one chunk of slack at most ($peak B)" test "$peak" -le $((49 * MIB))
	check "$1: the quota holds at the end (${kept:-0} B)" test "${kept:-0}" -le $((48 * MIB))
	check "$1: the reserve held ($low B)" test "$low" -ge $((16 * MIB))
	check "$1: no temporary or stray file remains" test -z "$(entries "$fs/cores" | grep -v '^core\.')"
}

storm tmpfs 4000000
storm ext4 4000100
