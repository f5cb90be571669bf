#!/bin/bash
# CollectDirectory= (docs/collect.md) on real crashes, in both modes: a hook reading /proc/PID of the held process
# adds its fields (the crashed process's comm, its state, its pidfd in socket mode) as CORESINK_HOOK_*, as
# CollectUser; one that sleeps forever, one that prints 100 MB, one that exits 1, one whose child keeps the pipe open
# and one that prints garbage each leave a complete capture and a said reason in CORESINK_COLLECT; the release waits
# for them at most CollectTimeoutSec (one that hangs) and not at all past their ends (the rest); no process of theirs
# outlives the capture; coresinkctl info shows the fields; in a storm (more captures in flight than CPUs) none runs,
# and the entry says so.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v jq > /dev/null || skip "no jq"
scratch
chmod 0755 "$T"
start_journald
CD=$T/collect.d
mkdir -m 0755 "$CD"
HOOK_USER=nobody
# 10-proc: the held process, read from /proc while the kernel holds it.
cat > "$CD/10-proc" <<'SH'
#!/bin/sh
echo "ARG=$1"
echo "COMM=$(cat /proc/$1/comm)"
echo "STATE=$(sed -n 's/^State:[[:space:]]*//p' /proc/$1/status)"
echo "UID=$(id -u)"
echo "PIDFD=${CORESINK_PIDFD:-none}"
[ -n "${CORESINK_PIDFD:-}" ] && echo "PIDFD_IS=$(readlink /proc/self/fd/3)"
echo "ENV=$(env | cut -d= -f1 | sort | tr '\n' ' ')"
SH
printf '#!/bin/sh\necho BEFORE_FAIL=1\nexit 1\n' > "$CD/40-fails"
printf '#!/bin/sh\nsleep 1000 &\necho CHILD=left\n' > "$CD/50-child"
printf '#!/bin/sh\nprintf "not a field\\nlower=1\\n=empty\\n"\n' > "$CD/60-garbage"
printf '#!/bin/sh\nyes FLOOD=1 | head -c 100000000\n' > "$CD/30-floods"
printf '#!/bin/sh\necho NEVER=1\n' > "$CD/70-x.dpkg-old"
chmod 0755 "$CD"/*
base=("Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "CollectDirectory=$CD"
      "CollectUser=$HOOK_USER" "CollectTimeoutSec=3s" "StackTrace=no")
write_config "$T/c.conf" "${base[@]}"
use_handler "$T/c.conf"
# Whether a process of the hooks still runs, a second after (killed, a process takes a moment to be gone).
hook_procs() {
	for _ in $(seq 10); do
		pgrep -u "$HOOK_USER" > /dev/null || return 1
		sleep 0.1
	done
	pgrep -a -u "$HOOK_USER" >&2
	return 0
}
field_of() { printf '%s\n' "$1" | sed -n "s/^$2=//p" | head -n 1; }
# crash_timed MIB: a crash, and how long (ms) the process took to die from its start (its release).
crash_timed() { local t0; t0=$(date +%s%N); crash_run "$CRASHER" "$1"; TOOK=$(( ($(date +%s%N) - t0) / 1000000 )); }

# Pipe mode, no hook that hangs: the release does not wait for a flood, a failure or a child left behind.
crash_timed 8
e=$(journal_entry "$CRASH_PID") || fail "no entry for $CRASH_PID"
said=$(field_of "$e" CORESINK_COLLECT)
check "pipe mode: the hook read the held process: comm $(field_of "$e" CORESINK_HOOK_COMM), state '$(field_of "$e" CORESINK_HOOK_STATE)'" \
	test "$(field_of "$e" CORESINK_HOOK_COMM)" = crasher -a "$(field_of "$e" CORESINK_HOOK_ARG)" = "$CRASH_PID"
check "  as CollectUser ($(field_of "$e" CORESINK_HOOK_UID))" test "$(field_of "$e" CORESINK_HOOK_UID)" = "$(id -u $HOOK_USER)"
# The pidfd where the kernel gives the pipe helper one (%F, Linux 6.16): as fd 3.
if [ "$(field_of "$e" CORESINK_HOOK_PIDFD)" = none ]; then
	check "  no pidfd from this kernel (no %F), none said" test "$(field_of "$e" CORESINK_HOOK_ENV)" = "CORESINK_PID HOME PATH PWD "
else
	check "  given the pidfd (%F) as fd 3: $(field_of "$e" CORESINK_HOOK_PIDFD_IS)" \
		test "$(field_of "$e" CORESINK_HOOK_PIDFD)" = 3 -a "$(field_of "$e" CORESINK_HOOK_PIDFD_IS)" = "anon_inode:[pidfd]"
	check "  its environment ours alone: $(field_of "$e" CORESINK_HOOK_ENV)" \
		test "$(field_of "$e" CORESINK_HOOK_ENV)" = "CORESINK_PID CORESINK_PIDFD HOME PATH PWD "
fi
check "  CORESINK_HOOKS lists the keys: $(field_of "$e" CORESINK_HOOKS)" \
	has " $(field_of "$e" CORESINK_HOOKS) " " COMM "
check "  one that exits 1: $(grep -o '40-fails: [^;]*' <<< "$said")" has "$said" "40-fails: failed (exit status 1), 1 field"
check "  its field kept: BEFORE_FAIL=$(field_of "$e" CORESINK_HOOK_BEFORE_FAIL)" test "$(field_of "$e" CORESINK_HOOK_BEFORE_FAIL)" = 1
check "  one that floods 100 MB: $(grep -o '30-floods: [^(;]*' <<< "$said")" has "$said" "30-floods: output too long, killed, 1 field"
check "  one whose child holds its pipe: $(grep -o '50-child: [^;]*' <<< "$said")" matches "$said" "50-child: done in [0-9]+ ms, 1 field"
check "  one that prints garbage: $(grep -o '60-garbage: [^;]*' <<< "$said")" \
	has "$said" '60-garbage: done in'
check "    its lines not taken, and said" has "$said" '0 fields (3 lines not taken, the first: "not a field")'
check "  a package leftover is not run" lacks "$e" "NEVER"
check "  the process was let go as they ended, not at the deadline ($TOOK ms)" test "$TOOK" -lt 2500
check "  the core complete" "$PATCHECK" "$(only_file "$T/cores")" 8
check "  nothing of the hooks left running" fails hook_procs
info=$("$B/coresinkctl" --config "$T/c.conf" --since "$CRASH_SINCE" info "$CRASH_PID")
check "  coresinkctl info shows them: $(grep -c '^ *Hook: ' <<< "$info") Hook lines" has "$info" "Hook: COMM=crasher"
json=$("$B/coresinkctl" --config "$T/c.conf" --since "$CRASH_SINCE" --json=short info "$CRASH_PID")
check "  and info --json: .Hooks.COMM = $(jq -r .Hooks.COMM <<< "$json")" test "$(jq -r .Hooks.COMM <<< "$json")" = crasher
rm -f "$T"/cores/core.*

# One that hangs: the process waits CollectTimeoutSec, no more; the hook is killed and said.
printf '#!/bin/sh\nexec sleep 1000\n' > "$CD/20-sleeps"
chmod 0755 "$CD/20-sleeps"
crash_timed 8
e=$(journal_entry "$CRASH_PID") || fail "no entry for $CRASH_PID"
said=$(field_of "$e" CORESINK_COLLECT)
check "one that sleeps forever: $(grep -o '20-sleeps: [^;]*' <<< "$said")" has "$said" "20-sleeps: timed out, killed, 0 fields"
check "  the process was held CollectTimeoutSec (3 s) and no longer ($TOOK ms)" test "$TOOK" -ge 2900 -a "$TOOK" -lt 5000
check "  the others' fields all the same" test "$(field_of "$e" CORESINK_HOOK_COMM)" = crasher
check "  the core complete" "$PATCHECK" "$(only_file "$T/cores")" 8
check "  nothing of the hooks left running" fails hook_procs
rm -f "$T"/cores/core.*

# A storm: each capture held 3 s by the sleeper; with more captures in flight than CPUs, the next runs none.
cpus=$(getconf _NPROCESSORS_ONLN)
pids=()
{
	for _ in $(seq $((cpus + 1))); do
		( ulimit -c unlimited; exec "$CRASHER" 1 ) > /dev/null 2>&1 &
		pids+=($!)
		sleep 0.4
	done
	for p in "${pids[@]}"; do wait "$p"; done
} 2> /dev/null
skipped=0 ran=0
for p in "${pids[@]}"; do
	e=$(journal_entry "$p") || fail "no entry for $p"
	case $(field_of "$e" CORESINK_COLLECT) in
	"skipped: "*" captures in flight on $cpus CPUs") skipped=$((skipped + 1)) ;;
	*"10-proc: done"*) ran=$((ran + 1)) ;;
	esac
done
check "a storm of $((cpus + 1)) on $cpus CPUs: hooks ran for $ran, skipped for $skipped (the entry says so)" \
	test "$ran" = "$cpus" -a "$skipped" = 1
check "  every crash stored all the same: $(ls "$T/cores" | grep -c '^core\.') cores" \
	test "$(ls "$T/cores" | grep -c '^core\.')" = $((cpus + 1))
rm -f "$CD/20-sleeps" "$T"/cores/core.*

if have_socket_mode; then
	write_config "$T/s.conf" "${base[@]}" "Socket=$T/kernel.sock"
	start_server "$T/s.conf"
	use_socket "$T/s.conf"
	crash_timed 8
	e=$(journal_entry "$CRASH_PID") || fail "no entry for $CRASH_PID in socket mode"
	said=$(field_of "$e" CORESINK_COLLECT)
	check "socket mode: the hook read the held process (comm $(field_of "$e" CORESINK_HOOK_COMM))" \
		test "$(field_of "$e" CORESINK_HOOK_COMM)" = crasher -a "$(field_of "$e" CORESINK_HOOK_ARG)" = "$CRASH_PID"
	check "  given its pidfd as fd 3: $(field_of "$e" CORESINK_HOOK_PIDFD_IS)" \
		test "$(field_of "$e" CORESINK_HOOK_PIDFD)" = 3 -a "$(field_of "$e" CORESINK_HOOK_PIDFD_IS)" = "anon_inode:[pidfd]"
	check "  the others said: $(grep -o '30-floods: [^(;]*' <<< "$said"); $(grep -o '50-child: [^;]*' <<< "$said")" \
		all_of_re "$said" "30-floods: output too long, killed" "40-fails: failed \(exit status 1\)" "50-child: done in"
	check "  the process was let go as they ended ($TOOK ms)" test "$TOOK" -lt 2500
	check "  the core complete" "$PATCHECK" "$(only_file "$T/cores")" 8
	check "  nothing of the hooks left running" fails hook_procs
	stop_server
fi
