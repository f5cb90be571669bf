#!/bin/bash
# pcheck.sh IMAGE CRASHES WORK: one point of a replayed power cut (make check-powercut: tests/vm/run.sh runs
# replaylog, which runs this at every flush, FUA and mark with REPLAY_ENTRY and REPLAY_FLAGS set). The image as a
# power cut at that moment leaves it, copied and mounted, must hold under final names only whole cores (each the
# crashed process's memory, decrypted (the tests' age key) and decompressed where it was so stored: CRASHES says each
# crash's pid, MiB and zero pages), and
# no file but coresink's own (the ledger, the signatures, the kept modules, each whole); coresinkctl list and status
# read it. At each mark and every tenth point, the next crash on it is stored, whole, its entry true, and after it
# the ledger counts what the directory holds and the signatures no more crashes than there were. (The ledger as the
# cut left it is not synced and may count more: a note, since nothing reads it before that count.) Prints what was
# wrong and exits 1 where anything was.
. "$(dirname "$0")/../e2e/lib.sh"
IMG=$1 CRASHES=$2 W=$3
NAME="point $REPLAY_ENTRY ($REPLAY_FLAGS${REPLAY_MARK:+ $REPLAY_MARK})"
why=""
bad() { why="$why; $*"; }
mkdir -p "$W/mnt"
# A new file each time: a mount a handler still held at the last point keeps its own.
rm -f "$W/pt.img" && cp --sparse=always "$IMG" "$W/pt.img" || fail "copying the image"
# Every point is the same file system: xfs refuses a second mount of a UUID it saw (nouuid, as xfstests replays
# logs), btrfs keeps the devices it scanned by their fsid (forgotten first).
opts=loop
case $(blkid -o value -s TYPE "$W/pt.img") in
xfs) opts=loop,nouuid ;;
btrfs) btrfs device scan --forget > /dev/null 2>&1 ;;
esac
mount -o "$opts" "$W/pt.img" "$W/mnt" 2> "$W/mount.err" ||
	{ echo "$NAME: does not mount: $(cat "$W/mount.err"; dmesg | tail -n 3)"; exit 1; }
at_exit "release_mount '$W/mnt'"
CORES=$W/mnt/cores
[ -d "$CORES" ] || exit 0

# The cores under final names, each whole; nothing else but coresink's own files.
disk=0
for f in "$CORES"/* "$CORES"/.[!.]*; do
	[ -e "$f" ] || continue
	n=${f##*/}
	case $n in
	.coresink.state | .coresink.signatures | .coresink.metrics | .modules) continue ;;
	core.*.*.*) ;;
	*) bad "$n: a file that is not a core under a core's name"; continue ;;
	esac
	pid=$(cut -d. -f3 <<< "$n")
	read -r _ mib pct _ < <(awk -v p="$pid" '$1 == p' "$CRASHES")
	[ -n "${mib:-}" ] || { bad "$n: not one of the crashes"; continue; }
	raw=$f
	if [ "${n%.age}" != "$n" ]; then
		# An encrypted core under its final name is a whole age file: its last chunk says it is the last.
		age -d -i "$(dirname "$0")/../e2e/age-test-key.txt" -o "$W/plain" "$f" 2> "$W/age.err" ||
			{ bad "$n: not a whole age file: $(head -n 1 "$W/age.err")"; continue; }
		raw=$W/plain n=${n%.age}
	fi
	if [ "${n%.zst}" != "$n" ]; then
		zstd -dcq "$raw" > "$W/raw" 2> /dev/null || { bad "$n: not a whole zstd frame"; continue; }
		raw=$W/raw
	fi
	"$PATCHECK" "$raw" "$mib" "$pct" > "$W/pat" || bad "$n: not the process's whole memory: $(cat "$W/pat")"
	disk=$(( disk + $(stat -c %b "$f") * 512 ))
done

# Each kept module whole: the deleted executable's bytes (only the crasher's copy was deleted before its crash).
for f in "$CORES"/.modules/.build-id/*/*; do
	[ -f "$f" ] || continue
	cmp -s "$f" "$CRASHER" || bad "kept module ${f#"$CORES"/}: not the executable's bytes"
	disk=$(( disk + $(stat -c %b "$f") * 512 ))
done

# The ledger as the cut left it: not synced, it may count a core the cut took back, or a vacuum's removal it did
# not see; nothing reads that count before the next capture counts the directory afresh (checked below). Said.
published=$(sed -n 's/^published \([0-9]*\)$/\1/p' "$CORES/.coresink.state" 2> /dev/null)
[ "${published:-0}" -le "$disk" ] || echo "note: $NAME: the ledger as left counts $published bytes, the cores $disk"
write_config "$W/c.conf" "Directory=$CORES" "KeepFree=16M" "MaxUse=48M" "Compress=yes" "KeepModules=yes" \
	"RateLimitBurst=0" "RateLimitGlobalBurst=0"
"$B/coresinkctl" --config "$W/c.conf" status > "$W/status" 2>&1 || bad "coresinkctl status: $(tail -n 1 "$W/status")"
has "$(cat "$W/status")" "in progress:      none" || bad "coresinkctl status: $(grep 'in progress' "$W/status")"

# The next crash, at each mark and every tenth point.
count=$(( $(cat "$W/count" 2> /dev/null || echo 0) + 1 ))
echo "$count" > "$W/count"
if [ "$REPLAY_FLAGS" = mark ] || [ $(( count % 10 )) -eq 1 ]; then
	# The replays run two at a time (run.sh), and kernel.core_pattern is the machine's one: each crash is made under a
	# lock they share, the pattern set and given back within it.
	exec 8> "${PCHECK_LOCK:-/run/coresink-pcheck.lock}"
	flock 8
	old_pattern=$(cat /proc/sys/kernel/core_pattern) old_limit=$(cat /proc/sys/kernel/core_pipe_limit)
	SET=yes
	at_exit '[ -z "$SET" ] || { printf "%s\n" "$old_pattern" > /proc/sys/kernel/core_pattern; echo "$old_limit" > /proc/sys/kernel/core_pipe_limit; }'
	"$CORESINK" --config "$W/c.conf" --core-pattern > /proc/sys/kernel/core_pattern || bad "--core-pattern"
	echo 16 > /proc/sys/kernel/core_pipe_limit
	crash_run "$CRASHER" -z 50 4
	printf '%s\n' "$old_pattern" > /proc/sys/kernel/core_pattern
	echo "$old_limit" > /proc/sys/kernel/core_pipe_limit
	SET=""
	flock -u 8
	e=$(entry_where "COREDUMP_PID=$CRASH_PID") || bad "the next crash: no entry"
	core=$(field "$e" COREDUMP_FILENAME)
	if [ "$(field "$e" CORESINK_RESULT)" != stored ] || [ ! -f "$core" ]; then
		bad "the next crash: $(field "$e" CORESINK_RESULT) $(field "$e" CORESINK_ERROR)"
	else
		zstd -dcq "$core" > "$W/raw" 2> /dev/null || cp "$core" "$W/raw"
		"$PATCHECK" "$W/raw" 4 50 > "$W/pat" || bad "the next crash's core: $(cat "$W/pat")"
	fi
	for k in CORESINK_LEDGER_ERROR CORESINK_SIGNATURE_ERROR CORESINK_ERROR; do
		[ -z "$(field "$e" "$k")" ] || bad "the next crash: $k=$(field "$e" "$k")"
	done
	n=$(field "$e" CORESINK_SIGNATURE_SEEN)
	crashes=$(wc -l < "$CRASHES")
	[ "${n:-0}" -le $(( crashes + 1 )) ] || bad "the signatures count $n crashes of $(( crashes + 1 ))"
	[ -n "$n" ] || bad "the next crash: no signature count"
	# Once that handler has ended: its ledger counts what the directory holds (within a MiB: xfs and btrfs may
	# give back preallocated blocks after a core was counted).
	for _ in $(seq 50); do grep -q "^inflight [0-9]* .* $CRASH_PID " "$CORES/.coresink.state" || break; sleep 0.1; done
	published=$(sed -n 's/^published \([0-9]*\)$/\1/p' "$CORES/.coresink.state")
	now=0
	for f in "$CORES"/core.* "$CORES"/.modules/.build-id/*/*; do
		[ -f "$f" ] && now=$(( now + $(stat -c %b "$f") * 512 ))
	done
	[ "${published:-0}" -le $(( now + 1048576 )) ] && [ "${published:-0}" -ge $(( now - 1048576 )) ] ||
		bad "after the next crash the ledger counts ${published:-nothing}, the directory holds $now"
	"$B/coresinkctl" --config "$W/c.conf" list "$CRASH_PID" > "$W/list" 2>&1
	matches "$(cat "$W/list")" " present " || bad "coresinkctl list: $(tail -n 1 "$W/list")"
fi
[ -z "$why" ] && exit 0
echo "$NAME:${why#;}"
exit 1
